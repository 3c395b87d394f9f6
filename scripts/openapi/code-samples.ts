/**
 * The request samples of the reference page (`x-codeSamples` on every operation): one source, the
 * calls below, rendered for curl, the TypeScript client (clients/typescript) and the Python client
 * (clients/python). The reference page's document gets them (pageDocument in docs-page.ts), and so does
 * llms-full.txt (llms.ts); openapi.json does not, for its size target (docs/openapi.md). test/openapi/
 * code-samples.test.ts runs every rendered sample against the local stack.
 *
 * A sample reads the key and the base address from GEO_API_KEY and GEO_BASE_URL (the clients' and curl's
 * alike: docs/clients.md), so nothing in it names a host or a port.
 */

type Json = Record<string, unknown>;
type Value = string | number;

/** One call: its arguments (path and query, by their names in the document) and the field it shows. */
interface Call {
  args: Record<string, Value>;
  /** The path, in the answer, of the value the TypeScript and Python samples print. */
  show: readonly (string | number)[];
  /**
   * A path parameter no fixed value can name (an answer id): the samples take it from the first item of
   * another read; curl reads it from the environment variable `env`.
   */
  from?: { param: string; read: string; args: Record<string, Value>; env: string };
}

/** The demo analysis of the workspace key that `npm start` prints (README, "A first call"). */
const ANALYSIS = 'acme-core';

/** The one sample source: every read of the document, by operationId (= MCP tool name). */
export const SAMPLE_CALLS: Readonly<Record<string, Call>> = {
  get_me: { args: {}, show: ['rate_limit', 'remaining'] },
  list_analyses: { args: { limit: 10 }, show: ['total'] },
  get_analysis: { args: { analysis: ANALYSIS }, show: ['name'] },
  get_metrics: { args: { analysis: ANALYSIS, window: '30d' }, show: ['metrics', 'visibility', 'value'] },
  get_metrics_timeseries: { args: { analysis: ANALYSIS, window: '30d' }, show: ['points', 'length'] },
  list_engines: { args: { analysis: ANALYSIS, window: '30d' }, show: ['total'] },
  list_competitors: { args: { analysis: ANALYSIS, window: '30d' }, show: ['total'] },
  list_sources: { args: { analysis: ANALYSIS, window: '30d', limit: 20 }, show: ['total'] },
  list_groups: { args: { analysis: ANALYSIS }, show: ['total'] },
  list_group_prompts: { args: { analysis: ANALYSIS, group: 'none', window: '30d', limit: 20 }, show: ['total'] },
  list_prompts: { args: { analysis: ANALYSIS }, show: ['total'] },
  list_runs: { args: { analysis: ANALYSIS, limit: 5 }, show: ['total'] },
  get_run: { args: { analysis: ANALYSIS, run: 'latest' }, show: ['state'] },
  list_answers: { args: { analysis: ANALYSIS, window: '7d', limit: 20 }, show: ['total'] },
  get_answer: {
    args: { analysis: ANALYSIS },
    show: ['engine'],
    from: { param: 'answer', read: 'list_answers', args: { analysis: ANALYSIS, limit: 1 }, env: 'ANSWER_ID' },
  },
};

/** Redoc shows `lang` as the name of the sample in its language list. */
export interface CodeSample {
  lang: 'curl' | 'TypeScript' | 'Python';
  source: string;
}

const camel = (name: string): string => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const pyValue = (v: Value): string => (typeof v === 'number' ? String(v) : JSON.stringify(v));
const tsValue = (v: Value): string => (typeof v === 'number' ? String(v) : `'${v}'`);
/** Python keyword arguments; `from` is a keyword there, the client takes it as `from_`. */
const pyName = (name: string): string => (name === 'from' ? 'from_' : name);

function pathParamsOf(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}

function pyCall(read: string, path: string, args: Record<string, Value>, extra?: [string, string]): string {
  const inPath = pathParamsOf(path);
  const positional = inPath.filter((p) => p in args).map((p) => pyValue(args[p] as Value));
  if (extra) positional.push(extra[1]);
  const named = Object.entries(args)
    .filter(([k]) => !inPath.includes(k))
    .map(([k, v]) => `${pyName(k)}=${pyValue(v)}`);
  return `geo.${read}(${[...positional, ...named].join(', ')})`;
}

function tsCall(read: string, args: Record<string, Value>, extra?: [string, string]): string {
  const entries = Object.entries(args).map(([k, v]) => `${k}: ${tsValue(v)}`);
  if (extra) entries.push(`${extra[0]}: ${extra[1]}`);
  return `geo.${camel(read)}(${entries.length ? `{ ${entries.join(', ')} }` : ''})`;
}

const pyShow = (show: Call['show']): string =>
  show.at(-1) === 'length'
    ? `len(result${show
        .slice(0, -1)
        .map((s) => `[${JSON.stringify(s)}]`)
        .join('')})`
    : `result${show.map((s) => `[${JSON.stringify(s)}]`).join('')}`;
const tsShow = (show: Call['show']): string => `result.${show.join('.')}`;

function curlSample(path: string, call: Call): string {
  const query = Object.entries(call.args)
    .filter(([k]) => !pathParamsOf(path).includes(k))
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`);
  let url = path;
  for (const [k, v] of Object.entries(call.args)) url = url.replace(`{${k}}`, encodeURIComponent(String(v)));
  const lines: string[] = [];
  if (call.from) {
    url = url.replace(`{${call.from.param}}`, `$${call.from.env}`);
    lines.push(`# ${call.from.env}: an id from ${call.from.read} (items[].id)`);
  }
  // Two lines, so that the reference page's sample panel shows the address without scrolling.
  lines.push(`curl -sS --fail-with-body -H "Authorization: Bearer $GEO_API_KEY" \\`);
  lines.push(`  "$GEO_BASE_URL${url}${query.length ? `?${query.join('&')}` : ''}"`);
  return lines.join('\n');
}

function pythonSample(read: string, path: string, call: Call, fromPath?: string): string {
  const lines = ['from geo_api import Client', '', 'geo = Client()  # GEO_API_KEY and GEO_BASE_URL from the environment'];
  let extra: [string, string] | undefined;
  if (call.from && fromPath) {
    lines.push(`${call.from.param}_id = ${pyCall(call.from.read, fromPath, call.from.args)}["items"][0]["id"]`);
    extra = [call.from.param, `${call.from.param}_id`];
  }
  lines.push(`result = ${pyCall(read, path, call.args, extra)}`, `print(${pyShow(call.show)})`);
  return lines.join('\n');
}

function typescriptSample(read: string, call: Call): string {
  const lines = [
    "import { createClient } from '@geo-api/client';",
    '',
    'const geo = createClient(); // GEO_API_KEY and GEO_BASE_URL from the environment',
  ];
  let extra: [string, string] | undefined;
  if (call.from) {
    lines.push(`const [first] = (await ${tsCall(call.from.read, call.from.args)}).items;`);
    extra = [call.from.param, 'first!.id'];
  }
  lines.push(`const result = await ${tsCall(read, call.args, extra)};`, `console.log(${tsShow(call.show)});`);
  return lines.join('\n');
}

/** The samples of one read: curl, TypeScript, Python. */
export function samplesFor(read: string, path: string, pathOf: (read: string) => string | undefined): CodeSample[] {
  const call = SAMPLE_CALLS[read];
  if (!call) throw new Error(`no code sample for ${read} (scripts/openapi/code-samples.ts)`);
  const fromPath = call.from ? pathOf(call.from.read) : undefined;
  if (call.from && !fromPath) throw new Error(`${read}: its sample takes an id from ${call.from.read}, which is not a read`);
  return [
    { lang: 'curl', source: curlSample(path, call) },
    { lang: 'TypeScript', source: typescriptSample(read, call) },
    { lang: 'Python', source: pythonSample(read, path, call, fromPath) },
  ];
}

/** The operations that are not reads (the MCP endpoint, this document): a curl sample each. */
const OTHER_SAMPLES: Readonly<Record<string, string>> = {
  mcp: [
    `curl -sS -H "Authorization: Bearer $GEO_API_KEY" \\`,
    `  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \\`,
    `  -H 'MCP-Protocol-Version: 2025-06-18' \\`,
    `  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' "$GEO_BASE_URL/mcp"`,
  ].join('\n'),
  mcp_open_stream: `# Answers 405 with Allow: the server offers no stream.\ncurl -sS -i "$GEO_BASE_URL/mcp"`,
  mcp_end_session: `# Answers 405 with Allow: there is no session to end.\ncurl -sS -i -X DELETE "$GEO_BASE_URL/mcp"`,
  get_openapi: `curl -sS --fail-with-body "$GEO_BASE_URL/openapi.json"`,
};

/** Adds `x-codeSamples` to every operation of a built document, in place, and returns it. */
export function addCodeSamples<T extends Json>(doc: T): T {
  const paths = doc.paths as Record<string, Record<string, Json>>;
  const readPaths = new Map<string, string>();
  for (const [path, item] of Object.entries(paths))
    for (const op of Object.values(item)) if (String(op.operationId) in SAMPLE_CALLS) readPaths.set(String(op.operationId), path);
  for (const [path, item] of Object.entries(paths)) {
    for (const op of Object.values(item)) {
      const id = String(op.operationId);
      const other = OTHER_SAMPLES[id];
      op['x-codeSamples'] = other ? [{ lang: 'curl', source: other }] : samplesFor(id, path, (r) => readPaths.get(r));
    }
  }
  return doc;
}
