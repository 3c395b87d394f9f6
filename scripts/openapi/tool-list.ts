import type { ToolDef } from '#shared/mcp/tools.js';

/** Where `npm run openapi` writes the tool list the MCP function answers tools/list with. */
export const TOOL_LIST_FILE = 'shared/mcp/tool-list.ts';

const quotedJson = (value: unknown) => JSON.stringify(value).replaceAll('\\', '\\\\').replaceAll("'", "\\'");

/** `export const NAME =` and its JSON text as one quoted string (the file is generated: Biome leaves it). */
const declaration = (name: string, value: unknown) => `export const ${name} =\n  '${quotedJson(value)}';`;

/**
 * The module holding the advertised tool list: its JSON text in one string (JSON.parse reads it faster
 * than V8 compiles the same object literal), so the exact bytes a client gets are in the file; and the
 * arguments each tool fills in, which tools/call needs beside the list.
 */
export function toolListModule(defs: readonly Pick<ToolDef, 'tool' | 'defaults'>[]): string {
  const list = defs.map((d) => d.tool);
  const defaults = Object.fromEntries(defs.filter((d) => Object.keys(d.defaults).length > 0).map((d) => [d.tool.name, d.defaults]));
  return `/**
 * What tools/list answers: the MCP tools built from the read table (shared/mcp/tools.ts) by \`npm run openapi\`
 * (scripts/openapi/tool-list.ts). Generated: do not edit; test/mcp/tool-list.test.ts fails when it is not
 * the list the read table makes.
 */
${declaration('TOOL_LIST', list)}

/** The arguments a tool fills in when the assistant leaves them out, where they differ from REST's defaults. */
${declaration('TOOL_DEFAULTS', defaults)}
`;
}
