import { benchApi, demoStore, measure, stats, table } from './harness.js';

/**
 * Warm p50/p95 of /me and /analyses through the local HTTP adapter, on the PostgreSQL server and on
 * the embedded PGlite, with the split the chain reports in Server-Timing: caller SQL (one round
 * trip), budget UpdateItem (one), data query.
 */
function split(header: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (header ?? '').split(',')) {
    const m = /^\s*(\w+);dur=([\d.]+)/.exec(part);
    if (m) out[m[1] as string] = Number(m[2]);
  }
  return out;
}

export default async function run(): Promise<string> {
  const rows: Array<Record<string, string | number>> = [];
  for (const kind of ['server', 'embedded'] as const) {
    const store = await demoStore(kind);
    const bench = await benchApi(store.readerUrl);
    const key = store.manifest!.keys.workspace;
    for (const path of ['/me', '/analyses']) {
      const parts: Record<string, number[]> = { identity: [], budget: [], data: [] };
      const s = await measure(
        async () => {
          const res = await fetch(`${bench.api.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`${path} ${res.status}`);
          const t = split(res.headers.get('server-timing'));
          for (const k of Object.keys(parts)) parts[k]!.push(t[k] ?? 0);
        },
        300,
        30,
      );
      rows.push({
        store: kind === 'server' ? 'PostgreSQL 15 server' : 'embedded PGlite',
        read: `GET ${path}`,
        'p50 ms': s.p50,
        'p95 ms': s.p95,
        'caller SQL p50': stats(parts.identity!).p50,
        'budget UpdateItem p50': stats(parts.budget!).p50,
        'data query p50': stats(parts.data!).p50,
      });
    }
    await bench.close();
    await store.close();
  }
  return `${table(rows)}\n\nEach call: 1 SQL round trip for identity + reach, 1 UpdateItem, 1 SQL round trip for the data (/me needs none: its figures come with the identity).`;
}
