import { readFileSync } from 'node:fs';
import { describe, expect, test } from '@jest/globals';
import { toolDef, toolList, tools } from '#shared/mcp/tools.js';
import { reads } from '#shared/reads/registry.js';
import { TOOL_LIST_FILE, toolListModule } from '../../scripts/openapi/tool-list.js';

/**
 * The MCP function answers tools/list with the list `npm run openapi` wrote (shared/mcp/tool-list.ts), not
 * one it builds at its first list: that list must be, byte for byte, the one the read table makes today.
 */
describe('the committed MCP tool list', () => {
  test('is the list the read table makes (else: npm run openapi)', () => {
    const built = [...tools().values()].map((t) => t.tool);
    expect(readFileSync(TOOL_LIST_FILE, 'utf8')).toBe(toolListModule(built));
    expect(JSON.stringify(toolList())).toBe(JSON.stringify(built));
    expect(toolList().map((t) => t.name)).toEqual(reads.map((r) => r.name));
  });

  test('tools/call builds the one tool it calls, the same as the whole table does', () => {
    for (const read of reads) expect(toolDef(read.name)).toBe(tools().get(read.name));
    expect(toolDef('drop_tables')).toBeUndefined();
  });
});
