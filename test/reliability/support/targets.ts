import pg from 'pg';
import type { DemoManifest } from '#shared/admin/demo.js';
import type { ReadDef } from '#shared/reads/types.js';
import { matchPath, type Route, routes } from '#shared/rest/routes.js';

/**
 * Concrete values for the path parameters of whatever reads the table holds at the time of the run, so the
 * battery covers reads added after it was written. Reserved words come from
 * docs/contract.md#the-fifteen-reads.
 */
export function pathValues(manifest: DemoManifest): Record<string, string> {
  return {
    analysis: manifest.analyses.collected,
    group: 'none',
    run: 'latest',
    answer: manifest.hostileAnswerIds[0] ?? '00000000-0000-4000-8000-000000000000',
  };
}

export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? 'none'));
}

/**
 * Every route of the gateway with a concrete path, /mcp and /openapi.json included; HEAD twins left out
 * (they answer as their GET without a body: test/integration/http-methods.test.ts).
 */
export function concreteRoutes(manifest: DemoManifest): Array<{ route: Route; path: string }> {
  const values = pathValues(manifest);
  return routes()
    .filter((route) => route.method !== 'HEAD')
    .map((route) => ({ route, path: fillPath(route.path, values) }));
}

/** The read a GET path lands on, the way the adapter routes it (dot segments resolved, one segment per {param}). */
export function readOf(target: string): ReadDef | undefined {
  const pathname = new URL(target, 'http://localhost').pathname;
  return routes().find((r) => r.method === 'GET' && r.read && matchPath(r.path, pathname))?.read;
}

export interface OutsideReach {
  /** Ids (lower-case UUIDs) of analyses and of everything inside them that the key must never see. */
  ids: Set<string>;
  slugs: string[];
}

/**
 * Ground truth taken from the database with the owner role, not from the API under test: everything
 * bound to an analysis outside `reach` (analyses, runs, answers, prompts, groups, competitors).
 */
export async function outsideReach(adminUrl: string, reachIds: string[]): Promise<OutsideReach> {
  const db = new pg.Client({ connectionString: adminUrl });
  await db.connect();
  try {
    const out = (
      await db.query<{ id: string; slug: string }>('SELECT id::text, slug FROM analyses WHERE NOT (id = ANY($1::uuid[]))', [reachIds])
    ).rows;
    const analysisIds = out.map((r) => r.id);
    const ids = new Set(analysisIds);
    for (const table of ['runs', 'answers', 'prompts', 'prompt_groups', 'competitors']) {
      const rows = (await db.query<{ id: string }>(`SELECT id::text FROM ${table} WHERE analysis_id = ANY($1::uuid[])`, [analysisIds]))
        .rows;
      for (const r of rows) ids.add(r.id);
    }
    return { ids, slugs: out.map((r) => r.slug) };
  } finally {
    await db.end();
  }
}

const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * What of `outside` appears in a response body. Refusals carry fixed messages and never echo a path
 * value, so even an id the caller sent must not come back.
 */
export function leaks(text: string, outside: OutsideReach): string[] {
  const found = new Set<string>();
  for (const m of text.match(UUIDS) ?? []) if (outside.ids.has(m.toLowerCase())) found.add(m.toLowerCase());
  for (const slug of outside.slugs) if (text.includes(slug)) found.add(slug);
  return [...found];
}
