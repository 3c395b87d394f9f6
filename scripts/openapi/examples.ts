import type { DemoManifest } from '#shared/admin/demo.js';
import { quietSdkNodeWarning } from '../../local/node-notice.js';
import type { Examples } from './document.js';

/**
 * The example of every operation in openapi/openapi.json: real answers of the API on the demo data, made
 * by `npm run openapi` and re-made by test/openapi/examples.test.ts, which compares them with the
 * committed document. Reproducible byte for byte: the demo is seeded with its fixed seed and this fixed
 * last day, each call names a window that does not move with today's date, and the few values that
 * depend on the moment of the call are set to fixed values (normalise() says which).
 */
export const EXAMPLE_END_DATE = '2026-06-30';

/** The day `n` days before the last day of the demo history. */
function daysBefore(n: number): string {
  return new Date(Date.parse(`${EXAMPLE_END_DATE}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);
}

/** Values that depend on when the examples were made, not on the data: fixed so that a rerun writes the same bytes. */
const LAST_USED_AT = `${EXAMPLE_END_DATE}T09:30:00.000Z`;

/**
 * The demo keys expire a year after the demo's last day, and the examples must still be made after that:
 * while they are made, keys expire this many years later (owner write, before the service role takes
 * over), and the key shown gets its seeded expiry back.
 */
const KEY_LIFE_EXTENSION_YEARS = 50;

const shiftYears = (iso: string, years: number) => `${String(Number(iso.slice(0, 4)) + years).padStart(4, '0')}${iso.slice(4)}`;

function normalise(body: any): any {
  if (body?.key?.last_used_at) body.key.last_used_at = LAST_USED_AT;
  if (body?.key?.expires_at) body.key.expires_at = shiftYears(body.key.expires_at, -KEY_LIFE_EXTENSION_YEARS);
  // The budget left depends on the calls made before in the same minute: shown as after a first call.
  const budget = body?.rate_limit;
  const ceiling = budget?.per_minute ?? budget?.limit;
  if (typeof ceiling === 'number') Object.assign(budget, { remaining: ceiling - 1, reset_after_seconds: 0 });
  return body;
}

type Get = (path: string) => Promise<any>;
type Post = (path: string, body: unknown) => Promise<any>;

/**
 * The calls shown, in order (later ones use identifiers the earlier ones returned). Small pages and
 * short windows keep the document readable and within its 200 KB (test/openapi/document.test.ts): one
 * item where a page can be asked for, and the MCP call is that of a small read, since its answer carries
 * the body twice (text and structuredContent). Each summary states the exact request.
 */
async function collect(get: Get, post: Post, m: DemoManifest): Promise<Examples> {
  // The smallest analysis the demo collects (Globex's, in the demo's other workspace: two engines, three
  // competitors, three prompts, six days) keeps the figure examples short; its workspace key reads it.
  const a = m.analyses.other_workspace;
  const out: Examples = {};
  const show = async (operationId: string, path: string, what: string) => {
    const value = normalise(await get(path));
    out[operationId] = { summary: `${what}: GET ${path}`, value };
    return value;
  };
  await show('get_me', '/me', 'A workspace key');
  await show('list_analyses', '/analyses', 'Every analysis the key reaches');
  await show('get_analysis', `/analyses/${a}`, 'The demo analysis');
  await show('get_metrics', `/analyses/${a}/metrics`, 'The last collection, compared with the one before');
  // The window starts on a day without a collection: the day before the analysis's first one.
  await show(
    'get_metrics_timeseries',
    `/analyses/${a}/metrics/timeseries?from=${daysBefore(6)}&to=${daysBefore(5)}`,
    'The first collection and the day before',
  );
  // The other figure reads over the whole history: no comparison period, so their rates are shorter to read.
  await show('list_engines', `/analyses/${a}/engines?window=all`, 'Per engine, whole history');
  await show('list_competitors', `/analyses/${a}/competitors?window=all`, 'Direct and indirect competitors, whole history');
  await show('list_sources', `/analyses/${a}/sources?window=all&limit=1`, 'The most cited domain');
  const groups = await show('list_groups', `/analyses/${a}/groups?window=all`, 'Every group, whole history');
  await show('list_group_prompts', `/analyses/${a}/groups/${groups.items[0].id}/prompts?window=all&limit=1`, 'First prompt of a group');
  await show('list_prompts', `/analyses/${a}/prompts`, 'The prompt catalogue');
  const runs = await show('list_runs', `/analyses/${a}/runs?limit=1`, 'The latest run');
  await show('get_run', `/analyses/${a}/runs/${runs.items[0].id}`, 'One run');
  const day = daysBefore(1);
  await show('list_answers', `/analyses/${a}/answers?from=${day}&to=${day}&limit=1`, 'First answer of one day');
  // An ordinary answer (extracted, naming brands and citing sources) of that day, not one of the demo's hostile texts.
  const candidates = await get(`/analyses/${a}/answers?from=${day}&to=${day}&limit=10`);
  let shown = false;
  for (const item of candidates.items as Array<{ id: string }>) {
    const answer = await get(`/analyses/${a}/answers/${item.id}`);
    if (
      m.hostileAnswerIds.includes(item.id) ||
      answer.extraction.state !== 'extracted' ||
      answer.mentions.length === 0 ||
      answer.citations.length === 0
    )
      continue;
    out.get_answer = { summary: `One answer with its mentions and citations: GET /analyses/${a}/answers/${item.id}`, value: answer };
    shown = true;
    break;
  }
  if (!shown) throw new Error(`no ordinary extracted answer among the first ten of ${day}`);
  const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_runs', arguments: { analysis: a, limit: 1 } } };
  const reply = await post('/mcp', request);
  // The budget is in _meta, structuredContent and the text (the JSON of structuredContent: list_runs
  // embeds no third-party text, so it is not fenced).
  if (reply.result?._meta?.rate_limit) normalise(reply.result._meta);
  if (reply.result?.structuredContent?.rate_limit) {
    normalise(reply.result.structuredContent);
    reply.result.content[0].text = JSON.stringify(reply.result.structuredContent);
  }
  out.mcp = { summary: 'Calling the tool list_runs (the latest run)', request, value: reply };
  return out;
}

/**
 * Starts the embedded stack (PGlite seeded with the demo ending on EXAMPLE_END_DATE, dynalite, the local
 * API), makes the calls with the key of the demo's other workspace, and stops it. Always the
 * embedded store, whatever DATABASE_URL says, so that every machine writes the same bytes.
 */
export async function generateExamples(): Promise<Examples> {
  process.env.LOG_LEVEL ??= 'SILENT';
  quietSdkNodeWarning();
  const { startStore, startBudgetStore, createBudgetTable } = await import('../../local/stores.js');
  const { startApi, localConfig } = await import('../../local/stack.js');
  const store = await startStore({
    seed: true,
    endDate: EXAMPLE_END_DATE,
    extra: async (db) => {
      await db.query(`UPDATE api_keys SET expires_at = expires_at + interval '${KEY_LIFE_EXTENSION_YEARS} years'`);
    },
  });
  const budget = await startBudgetStore();
  try {
    await createBudgetTable(budget.endpoint, 'geo-budget-examples');
    const api = await startApi(localConfig(store.readerUrl, budget.endpoint, { BUDGET_TABLE: 'geo-budget-examples', LOG_LEVEL: 'SILENT' }));
    try {
      const manifest = store.manifest as DemoManifest;
      const headers = { authorization: `Bearer ${manifest.keys.other_workspace}` };
      const answer = async (path: string, res: Response) => {
        const text = await res.text();
        if (res.status !== 200) throw new Error(`example call ${path} answered ${res.status}: ${text}`);
        return JSON.parse(text);
      };
      const get: Get = async (path) => answer(path, await fetch(`${api.baseUrl}${path}`, { headers }));
      const post: Post = async (path, body) =>
        answer(
          path,
          await fetch(`${api.baseUrl}${path}`, {
            method: 'POST',
            headers: { ...headers, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }),
        );
      return await collect(get, post, manifest);
    } finally {
      await api.close();
    }
  } finally {
    await budget.close();
    await store.close();
  }
}
