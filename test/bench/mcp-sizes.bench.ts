import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { migrate } from '#shared/admin/migrate.js';
import { ASSISTANT_RESULT_BYTES } from '#shared/reads/contracts/result-size.js';
import { largeManifest, seedLarge } from '../fixtures/large-dataset.js';
import { largest, largestPerTool, longHistorySizes } from '../mcp/long-history.js';
import { benchApi, serverDatabase, table, withUser } from './harness.js';

/**
 * The size of each tool's default result on a long history, for the record: the figures of test/reliability/mcp-sizes.long-history.ts
 * (which CI runs on a fresh database) on the reused benchmark database geo_bench_1y, through the SDK
 * client. Throws when a default call is over ASSISTANT_RESULT_BYTES.
 */
export default async function run(): Promise<string> {
  const years = 1 as const;
  const m = largeManifest({ years });
  const url = await serverDatabase(`geo_bench_${years}y`, async (db) => {
    await migrate(db);
    await seedLarge(db, { years });
  });
  const owner = new pg.Client({ connectionString: url });
  await owner.connect();
  let longest: string;
  try {
    await migrate(owner);
    longest = (
      await owner.query<{ id: string }>('SELECT id FROM answers WHERE analysis_id = $1 ORDER BY length(text) DESC, id LIMIT 1', [
        m.analysisId,
      ])
    ).rows[0]!.id;
  } finally {
    await owner.end();
  }
  const bench = await benchApi(withUser(url, 'geo_reader'));
  const client = new Client({ name: 'geo-bench', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${bench.api.baseUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${m.secret}` } },
    }),
  );
  let sizes: Awaited<ReturnType<typeof longHistorySizes>>;
  try {
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      if (result.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${JSON.stringify(result.content)}`);
      return result;
    };
    sizes = await longHistorySizes(call, (await client.listTools()).tools, m, longest);
  } finally {
    await client.close();
    await bench.close();
  }
  const worst = largestPerTool(sizes.defaults);
  const widest = largestPerTool(sizes.extremes);
  const rows = [...worst.values()].map((w) => {
    const x = widest.get(w.tool);
    const extra = x ? Object.fromEntries(Object.entries(x.args).filter(([k]) => !(k in w.args) || w.args[k] !== x.args[k])) : undefined;
    return {
      tool: w.tool,
      calls: w.calls,
      'text block': w.text,
      structuredContent: w.structured,
      'largest with': JSON.stringify(w.args).replace(m.analysisSlug, '…'),
      'not default: largest page / window all': x ? `${largest(x)} (${JSON.stringify(extra)})` : '',
    };
  });
  const over = sizes.defaults
    .filter((s) => largest(s) > ASSISTANT_RESULT_BYTES)
    .map((s) => `${s.tool} ${JSON.stringify(s.args)}: ${s.text} / ${s.structured} bytes`);
  const out =
    `Every tool with default arguments on the 1-year dataset (${m.answers.toLocaleString('en')} answers, 200 prompts × 6 engines × 365 daily runs), ` +
    `through the MCP SDK client; largest result per tool, in bytes (limit ${ASSISTANT_RESULT_BYTES.toLocaleString('en')} each). The last column, for the record, ` +
    `is the largest of the widest legal page and window=all, which a tool description must tell the assistant how to avoid when over.\n\n${table(rows)}`;
  if (over.length > 0) throw new Error(`${out}\n\nover ${ASSISTANT_RESULT_BYTES} bytes:\n${over.join('\n')}`);
  return out;
}
