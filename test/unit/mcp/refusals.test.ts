import { describe, expect, test } from '@jest/globals';
import { plainRpcBody } from '#shared/mcp/refusals.js';

/** Every character a reader may take for a line break or that reorders text, none allowed raw in a reply. */
const UNSEEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const HIDDEN = 'a\u2028b\u2029c\u0085d\u202Ee\u2066f\u200Bg\u007Fh\n';

describe('plainRpcBody: the SDK reply as a model may read it', () => {
  test('a result: the same JSON value, no raw separator or format character, nested strings included', () => {
    const inner = JSON.stringify({ answer: HIDDEN, error: { message: HIDDEN } });
    const reply = { result: { content: [{ type: 'text', text: inner }], structuredContent: { answer: HIDDEN } }, jsonrpc: '2.0', id: 7 };
    const out = plainRpcBody(JSON.stringify(reply));
    expect(out).not.toMatch(UNSEEN);
    expect(JSON.parse(out)).toEqual(reply);
  });

  test('an error: its message on one line, the rest of the value as it was', () => {
    const reply = { jsonrpc: '2.0', id: null, error: { code: -32600, message: `bad ${HIDDEN}`, data: { note: HIDDEN } } };
    const out = plainRpcBody(JSON.stringify(reply));
    expect(out).not.toMatch(UNSEEN);
    const parsed = JSON.parse(out);
    expect(parsed.error.message).not.toMatch(UNSEEN);
    expect(parsed.error.message).toBe('bad a\\u2028b\\u2029c\\u0085d\\u202ee\\u2066f\\u200bg\\u007fh\\u000a');
    expect(parsed.error.data).toEqual(reply.error.data);
    expect(parsed.id).toBeNull();
  });

  test('an empty body (a notification accepted) and a body that is not JSON pass as they are', () => {
    expect(plainRpcBody('')).toBe('');
    expect(plainRpcBody('{"error":')).toBe('{"error":');
  });
});
