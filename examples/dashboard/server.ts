/**
 * A small dashboard over the API: this backend holds the key and proxies the reads, the page
 * (page.html) draws what /data returns. The API sends no CORS headers, on purpose: a key must never
 * reach a browser, so a page calls a backend of its own, which calls the API.
 *
 * Run against `npm start` (or a deployed stage):
 *   GEO_BASE_URL=http://127.0.0.1:<port>/api/v1 GEO_API_KEY=geo_live_... GEO_ANALYSIS=acme-core npx tsx examples/dashboard/server.ts
 * then open http://127.0.0.1:4000/. GEO_BASE_URL is the API's base address (`npm start` prints it); there
 * is no default, so the dashboard never calls an address nobody gave it.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '../../clients/typescript/src/index.js';

export interface DashboardOptions {
  /** The API's base URL, up to /api/v1. */
  baseUrl: string;
  key: string;
  /** Analysis slug or id. */
  analysis: string;
  port?: number;
}

export interface Dashboard {
  url: string;
  close(): Promise<void>;
}

const here = dirname(fileURLToPath(import.meta.url));

/**
 * What the page needs, in one call: the daily series, the competitors, the cited sources by category, the
 * latest finished run and its changes.
 */
async function gather(o: DashboardOptions): Promise<unknown> {
  // The repository's client: typed reads, and the retries a 429 or a transient 503 calls for.
  const geo = createClient({ apiKey: o.key, baseUrl: o.baseUrl });
  const analysis = o.analysis;
  const [series, competitors, sources, runs] = await Promise.all([
    geo.getMetricsTimeseries({ analysis, window: '30d', segments: 'branded' }),
    geo.listCompetitors({ analysis, window: '30d' }),
    geo.listSources({ analysis, window: '30d', limit: 1 }),
    geo.listRuns({ analysis, limit: 10 }),
  ]);
  const finished = runs.items.find((r) => r.state === 'finished');
  const run = finished ? await geo.getRun({ analysis, run: finished.id }) : null;
  return { series, competitors, sources, run };
}

export async function startDashboard(o: DashboardOptions): Promise<Dashboard> {
  const page = await readFile(join(here, 'page.html'), 'utf8');
  const server: Server = createServer((req, res) => {
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, {
        'content-type': type,
        'cache-control': 'no-store',
        // The page runs its own inline script and draws inline SVG; it loads nothing from anywhere else.
        'content-security-policy':
          "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:",
      });
      res.end(body);
    };
    if (req.method === 'GET' && req.url === '/') return send(200, 'text/html; charset=utf-8', page);
    if (req.method === 'GET' && req.url === '/data') {
      gather(o).then(
        (data) => send(200, 'application/json', JSON.stringify(data)),
        (err: Error) => send(502, 'application/json', JSON.stringify({ error: err.message })),
      );
      return;
    }
    send(404, 'text/plain', 'not found');
  });
  await new Promise<void>((resolve) => server.listen(o.port ?? 0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const key = process.env.GEO_API_KEY;
  const analysis = process.env.GEO_ANALYSIS;
  const baseUrl = process.env.GEO_BASE_URL;
  if (!key || !analysis || !baseUrl) throw new Error('set GEO_BASE_URL, GEO_API_KEY and GEO_ANALYSIS');
  const d = await startDashboard({
    baseUrl,
    key,
    analysis,
    port: Number(process.env.PORT ?? 4000),
  });
  process.stdout.write(`dashboard on ${d.url}/\n`);
}
