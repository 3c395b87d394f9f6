import { describe, expect, test } from '@jest/globals';
import type { CallToolResult } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { replyBytes, replyBytesAtMost } from '#shared/mcp/call-tool.js';
import { resultText } from '#shared/mcp/fence.js';
import type { ToolDef } from '#shared/mcp/tools.js';
import { RESPONSE_ROOM_BYTES } from '#shared/middleware/response-bound.js';

/** A result as callTool builds it: the text block, fenced where the tool embeds third-party text. */
function resultOf(structured: Record<string, unknown>, untrusted: boolean): CallToolResult {
  const def = { untrusted, read: { name: 'list_group_prompts' } } as unknown as ToolDef;
  return { content: [{ type: 'text', text: resultText(def, structured) }], structuredContent: structured, _meta: {} };
}

describe('replyBytesAtMost: a bound from lengths alone on what a result weighs in the response', () => {
  test('never under the weight, whatever the strings hold (controls, separators, quotes, astral) and the id', () => {
    const text = fc.string({ unit: 'binary', maxLength: 200 });
    fc.assert(
      fc.property(
        fc.array(fc.record({ text, n: fc.integer() }), { maxLength: 20 }),
        fc.oneof(fc.constant(null), fc.integer(), text),
        fc.boolean(),
        (items, id, untrusted) => {
          const result = resultOf({ items, truncated: true }, untrusted);
          expect(replyBytesAtMost(id, result)).toBeGreaterThanOrEqual(replyBytes(id, result));
        },
      ),
    );
  });

  test('a page of 100,000 characters, five times an assistant default page, is held under the room by the bound alone', () => {
    const result = resultOf({ items: ['x'.repeat(100_000 - 14)] }, false);
    expect(JSON.stringify(result.structuredContent)).toHaveLength(100_000);
    expect(replyBytesAtMost(1, result)).toBeLessThanOrEqual(RESPONSE_ROOM_BYTES);
  });
});
