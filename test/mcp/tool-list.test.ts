import { readFileSync } from 'node:fs';
import { describe, expect, test } from '@jest/globals';
import { UNTRUSTED_KEY } from '#shared/mcp/schema.js';
import { callDef, toolDef, toolList, tools } from '#shared/mcp/tools.js';
import { reads } from '#shared/reads/registry.js';
import { OPENAPI_FILE } from '#shared/rest/serialize-openapi.js';
import { TOOL_LIST_FILE, toolListModule } from '../../scripts/openapi/tool-list.js';

/**
 * The MCP function answers tools/list with the list `npm run openapi` wrote (shared/mcp/tool-list.ts), not
 * one it builds at its first list: that list must be, byte for byte, the one the read table makes today.
 */
describe('the committed MCP tool list', () => {
  test('is the list the read table makes (else: npm run openapi)', () => {
    const built = [...tools().values()].map((t) => t.tool);
    expect(readFileSync(TOOL_LIST_FILE, 'utf8')).toBe(toolListModule([...tools().values()]));
    expect(JSON.stringify(toolList())).toBe(JSON.stringify(built));
    expect(toolList().map((t) => t.name)).toEqual(reads.map((r) => r.name));
  });

  test('tools/call builds the one tool it calls, the same as the whole table does', () => {
    for (const read of reads) expect(toolDef(read.name)).toBe(tools().get(read.name));
    expect(toolDef('drop_tables')).toBeUndefined();
  });

  test('tools/call runs each tool as the read table builds it: read, defaults, page slice, untrusted text wrapped the same', () => {
    const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as { components: { examples: Record<string, { value: unknown }> } };
    let wrapped = 0;
    for (const read of reads) {
      const built = toolDef(read.name);
      const listed = callDef(read.name);
      expect(listed).toBeDefined();
      const { structured: s1, tool: t1, ...facts1 } = built!;
      const { structured: s2, tool: t2, ...facts2 } = listed!;
      expect({ name: read.name, ...facts2 }).toEqual({ name: read.name, ...facts1 });
      expect(JSON.stringify(t2)).toBe(JSON.stringify(t1));
      // The read's example body (demo data: engine answers, brand and domain names) wrapped alike.
      const body = doc.components.examples[read.name]?.value;
      expect({ name: read.name, example: body !== undefined }).toEqual({ name: read.name, example: true });
      const out = JSON.stringify(s2(body));
      expect(out).toBe(JSON.stringify(s1(body)));
      wrapped += out.split(`"${UNTRUSTED_KEY}"`).length - 1;
    }
    expect(wrapped).toBeGreaterThan(10);
    expect(callDef('drop_tables')).toBeUndefined();
  });
});
