import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { type FunctionSpec, invoke } from './support/assembly.js';

/**
 * The rehearsal's stand-in for the Lambda runtime carries a function's reply and its event whole: a
 * reply of megabytes arrives in many pipe chunks, and a character whose UTF-8 bytes straddle two of them
 * must not turn into U+FFFD (the reference page the openapi bundle serves is 2.7 MB with such characters).
 */
const dir = mkdtempSync(join(tmpdir(), 'geo-invoke-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Two-, three- and four-byte characters, so that every chunk size splits some of them.
const TEXT = 'é日😀'.repeat(300_000);
writeFileSync(
  join(dir, 'index.mjs'),
  'export const handler = async (event) => ({ statusCode: 200, body: event.body + event.body.length });\n',
);
const fn: FunctionSpec = {
  stack: 'test',
  logicalId: 'EchoFn',
  taskRoot: dir,
  handler: 'index.handler',
  runtime: 'nodejs24.x',
  timeoutSeconds: 30,
  memoryMb: 128,
  environment: {},
  tracing: false,
};

describe('the runtime stand-in', () => {
  test('a multi-megabyte event and reply of multi-byte characters arrive whole, character for character', async () => {
    const out = await invoke(fn, { PATH: process.env.PATH ?? '' }, { body: TEXT });
    expect(out.ok).toBe(true);
    const body = (out.result as { body: string }).body;
    expect(Buffer.byteLength(body)).toBeGreaterThan(2_000_000);
    expect(body.includes('\uFFFD')).toBe(false);
    expect(body).toBe(TEXT + TEXT.length);
  }, 60_000);
});
