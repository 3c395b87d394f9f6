import * as z from 'zod';
import { migrate } from '#shared/admin/migrate.js';
import { reads } from '#shared/reads/registry.js';
import { pathParams } from '#shared/reads/types.js';
import { MAX_WINDOW_DAYS } from '#shared/reads/windows.js';
import { largeManifest, seedLarge } from '../fixtures/large-dataset.js';
import { benchApi, serverDatabase, table, withUser } from './harness.js';

/**
 * The largest response any legal call can produce, on the 3-year dataset: every read
 * with its widest legal arguments (window all, a custom window of the longest span, the largest page),
 * over REST and as an MCP tools/call (whose JSON-RPC reply carries the result twice: text block and
 * structuredContent), against the 6 MB a Lambda function may answer. Time is not the point here.
 */
const LAMBDA_LIMIT = 6 * 1024 * 1024;

export default async function run(): Promise<string> {
  const m = largeManifest({ years: 3 });
  const url = await serverDatabase('geo_bench_3y', async (db) => {
    await migrate(db);
    await seedLarge(db, { years: 3 });
  });
  const bench = await benchApi(withUser(url, 'geo_reader'));
  const base = bench.api.baseUrl;
  const headers = { authorization: `Bearer ${m.secret}` };
  const a = `/analyses/${m.analysisSlug}`;
  const from366 = new Date(Date.parse(`${m.endDate}T00:00:00Z`) - (MAX_WINDOW_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  try {
    const rest = async (path: string) => {
      const res = await fetch(`${base}${path}`, { headers });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
      return text;
    };
    const mcp = async (name: string, args: Record<string, unknown>) => {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
      });
      const text = await res.text();
      if (res.status !== 200 || (JSON.parse(text) as { result?: { isError?: boolean } }).result?.isError)
        throw new Error(`${name}: ${text.slice(0, 300)}`);
      return text;
    };
    const firstAnswer = JSON.parse(await rest(`${a}/answers?window=all&limit=1`)) as { items: Array<{ id: string }> };
    const group = m.groupIds[0] as string;
    // [read name, REST path, MCP arguments], the widest legal call of each read.
    const cases: Array<[string, string, Record<string, unknown>]> = [];
    for (const read of reads) {
      const values: Record<string, string> = { analysis: m.analysisSlug, group, run: 'latest', answer: firstAnswer.items[0]!.id };
      const args: Record<string, unknown> = {};
      for (const p of pathParams(read.path)) args[p] = values[p];
      const path = read.path.replace(/\{(\w+)\}/g, (_x, p: string) => values[p] as string);
      const input = z.toJSONSchema(read.input, { io: 'input' }) as { properties: Record<string, { maximum?: number; enum?: string[] }> };
      const limit = input.properties.limit?.maximum;
      if (limit !== undefined) args.limit = limit;
      const variants: Array<Record<string, unknown>> = input.properties.window
        ? [{ window: 'all' }, { from: from366, to: m.endDate }]
        : [{}];
      for (const v of variants) {
        const query = { ...args, ...v };
        for (const p of pathParams(read.path)) delete query[p];
        const qs = new URLSearchParams(Object.entries(query).map(([k, x]) => [k, String(x)])).toString();
        cases.push([read.name, `${path}${qs ? `?${qs}` : ''}`, { ...args, ...v }]);
      }
    }
    const rows: Array<Record<string, string | number>> = [];
    let largest = 0;
    for (const [name, path, args] of cases) {
      const restBody = await rest(path);
      const mcpBody = await mcp(name, args);
      // What counts against the limit is the function's response: the body once more as a JSON string.
      const lambda = [restBody, mcpBody].map((body) => Buffer.byteLength(JSON.stringify({ statusCode: 200, headers: {}, body })));
      largest = Math.max(largest, ...lambda);
      rows.push({
        read: name,
        call: path.replace(m.analysisSlug, '{a}').replace(group, '{group}').replace(firstAnswer.items[0]!.id, '{answer}'),
        'REST bytes': Buffer.byteLength(restBody),
        'MCP reply bytes': Buffer.byteLength(mcpBody),
        'Lambda response bytes, REST / MCP': `${lambda[0]} / ${lambda[1]}`,
        '≤ 6 MB': lambda.every((b) => b <= LAMBDA_LIMIT) ? 'yes' : 'NO',
      });
    }
    if (largest > LAMBDA_LIMIT) process.exitCode = 1;
    return `${table(rows)}\n\ngeo_bench_3y (${m.answers} answers over 3 years); the largest Lambda response of any legal call (the reply as the function returns it: body, status and headers as JSON): ${(largest / 1024).toFixed(0)} KiB (Lambda limit 6,144 KiB).`;
  } finally {
    await bench.close();
  }
}
