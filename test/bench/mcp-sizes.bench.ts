import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { reads } from '../../shared/reads/registry.js';
import { isScoped, pathParams } from '../../shared/reads/types.js';
import { largeManifest, seedLarge } from '../../shared/store/large.js';
import { migrate } from '../../shared/store/migrate.js';
import { listerOf, resultSizes } from '../mcp/args.js';
import { benchApi, serverDatabase, table, withUser } from './harness.js';

/**
 * Issue 14 point 2 on a long history: every tool with its default arguments on the 1-year dataset
 * (geo_bench_1y, the figures benchmark's), through the SDK client, must give a text block and a
 * JSON.stringify(structuredContent) of at most 75,000 bytes each (Claude Code's 25,000 tokens at about
 * 3 bytes a token). Required path parameters take every value their lister gives (every group and
 * none, the latest run and the oldest listed, the longest answer). Here rather than in `npm test`:
 * the dataset takes about two minutes to fill once, on the PostgreSQL server. Throws when over.
 */
const LIMIT = 75_000;

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
    longest = (await owner.query<{ id: string }>('SELECT id FROM answers WHERE analysis_id = $1 ORDER BY length(text) DESC, id LIMIT 1', [m.analysisId])).rows[0]!.id;
  } finally {
    await owner.end();
  }
  const bench = await benchApi(withUser(url, 'geo_reader'));
  const client = new Client({ name: 'geo-bench', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${bench.api.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${m.secret}` } } }),
  );
  const rows: Array<Record<string, string | number>> = [];
  const over: string[] = [];
  try {
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      if (result.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${JSON.stringify(result.content)}`);
      return result;
    };
    const tools = (await client.listTools()).tools;
    for (const read of reads) {
      const base: Record<string, unknown> = isScoped(read) ? { analysis: m.analysisSlug } : {};
      let sets = [base];
      for (const param of pathParams(read.path).filter((p) => p !== 'analysis')) {
        let ids: string[];
        if (param === 'answer') ids = [longest];
        else {
          const lister = listerOf(read, param)!;
          const items = ((await call(lister.name, { ...base })).structuredContent as { items: Array<{ id: string }> }).items;
          ids = param === 'run' ? ['latest', items.at(-1)!.id] : items.map((i) => i.id);
        }
        sets = sets.flatMap((s) => ids.map((id) => ({ ...s, [param]: id })));
      }
      // Beyond the defaults, for the record: the largest page and the longest window, one at a time.
      const props = (tools.find((t) => t.name === read.name)!.inputSchema.properties ?? {}) as Record<string, { maximum?: number; enum?: string[] }>;
      const extremes: Record<string, unknown>[] = [];
      if (props.limit?.maximum !== undefined) extremes.push({ limit: props.limit.maximum });
      if (props.window?.enum?.includes('all')) extremes.push({ window: 'all' });
      let worst = { text: 0, structured: 0, args: '' };
      let widest = { bytes: 0, args: '' };
      for (const args of sets) {
        const size = resultSizes(await call(read.name, args));
        if (Math.max(size.text, size.structured) > Math.max(worst.text, worst.structured)) worst = { ...size, args: JSON.stringify(args) };
        if (Math.max(size.text, size.structured) > LIMIT) over.push(`${read.name} ${JSON.stringify(args)}: ${size.text} / ${size.structured} bytes`);
      }
      for (const extra of extremes) {
        const args = { ...sets[sets.length - 1], ...extra };
        const size = resultSizes(await call(read.name, args));
        if (Math.max(size.text, size.structured) > widest.bytes) widest = { bytes: Math.max(size.text, size.structured), args: JSON.stringify(extra) };
      }
      rows.push({
        tool: read.name,
        calls: sets.length,
        'text block': worst.text,
        structuredContent: worst.structured,
        'largest with': worst.args.replace(m.analysisSlug, '…'),
        'not default: largest page / window all': widest.args ? `${widest.bytes} (${widest.args})` : '',
      });
    }
  } finally {
    await client.close();
    await bench.close();
  }
  const out =
    `Every tool with default arguments on the 1-year dataset (${m.answers.toLocaleString('en')} answers, 200 prompts × 6 engines × 365 daily runs), ` +
    `through the MCP SDK client; largest result per tool, in bytes (limit ${LIMIT.toLocaleString('en')} each). The last column, for the record, ` +
    `is the largest of the widest legal page and window=all, which a tool description must tell the assistant how to avoid when over.\n\n${table(rows)}`;
  if (over.length > 0) throw new Error(`${out}\n\nover ${LIMIT} bytes:\n${over.join('\n')}`);
  return out;
}
