import type { Tool } from '@modelcontextprotocol/server';

/** Where `npm run openapi` writes the tool list the MCP function answers tools/list with. */
export const TOOL_LIST_FILE = 'shared/mcp/tool-list.ts';

/**
 * The module holding the advertised tool list: its JSON text in one string (JSON.parse reads it faster
 * than V8 compiles the same object literal), so the exact bytes a client gets are in the file.
 */
export function toolListModule(list: readonly Tool[]): string {
  const text = JSON.stringify(list).replaceAll('\\', '\\\\').replaceAll("'", "\\'");
  return `/**
 * What tools/list answers: the MCP tools built from the read table (shared/mcp/tools.ts) by \`npm run openapi\`
 * (scripts/openapi/tool-list.ts). Generated: do not edit; test/mcp/tool-list.test.ts fails when it is not
 * the list the read table makes.
 */
export const TOOL_LIST =
  '${text}';
`;
}
