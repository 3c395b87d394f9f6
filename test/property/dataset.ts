import fc from 'fast-check';
import { fingerprint, visiblePrefix } from '#shared/keys.js';
import type { Queryable } from '#shared/store/queryable.js';

/**
 * Datasets the data contract (docs/data-contract.md) allows, as the collection pipeline writes them: the
 * generator (fast-check), the writer (the pipeline's tables in the contract's order, then
 * finish_run_extraction, then prompt moves through the prompts.group_id trigger), and the figures worked out
 * again from the rows written, independently of the aggregates the service reads.
 */

export const NIL = '00000000-0000-0000-0000-000000000000';
const MAX = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
const ALL_BITS = (1n << 128n) - 1n;
const form = (n: bigint) => {
  const h = n.toString(16).padStart(32, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/** Every form of identifier the store holds: nil and max, nil-like and max-like, RFC 9562 ids, any 128 bits. */
export const anyId: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(NIL, MAX),
  fc.integer({ min: 1, max: 40 }).map((n) => form(BigInt(n))),
  fc.integer({ min: 1, max: 40 }).map((n) => form(ALL_BITS - BigInt(n))),
  fc.bigInt({ min: 0n, max: ALL_BITS }).map(form),
  fc.uuid(),
);

/** Bounds of docs/data-contract.md#bounds, in code points. */
const BOUND = { answer: 100_000, brand: 200, url: 2048, domain: 253, prompt: 1000, recipe: 100, engine: 64 };

/** A string of exactly n code points, made of characters that cost the most to carry (escapes, astral planes). */
const longest = (n: number, seed: string) => Array.from({ length: n }, (_, i) => [...seed][i % [...seed].length]).join('');
const UNICODE_SEED = 'Ω\u2028é😀\u0007<"\\日\u200b';

/** Any text PostgreSQL stores (every code point but NUL), short, or at its bound. */
const text = (bound: number) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }).map((s) => s.replaceAll('\u0000', '')) },
    { weight: 1, arbitrary: fc.constant(longest(bound, UNICODE_SEED)) },
  );
const name = text(300);
/**
 * A brand name as the store takes it: any text in Unicode NFC (migration 026), within its bound in code
 * points (NFC may lengthen a string: a composition exclusion decomposes).
 */
const brandText = (bound: number) =>
  text(bound)
    .map((s) => s.normalize('NFC'))
    .filter((s) => [...s].length <= bound);

const LONG_DOMAIN = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
export const DOMAINS = ['acme.com', 'g2.com', 'blog.acme.com', 'bücher.example', 'xn--bcher-kva.example', LONG_DOMAIN];
const URLS = ['https://acme.com/', 'https://g2.com/a?b=c#d', `https://acme.com/${'p'.repeat(BOUND.url - 17)}`, 'https://bücher.example/ü'];
const ENGINE_KEYS = ['chatgpt', 'perplexity', 'moteur-é', 'k'.repeat(BOUND.engine)];
const RECIPES = ['r1', longest(BOUND.recipe, 'ρ😀')];

const SLUGS = fc.oneof(
  fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,12}$/),
  fc.constantFrom('café', '日本語-分析', 'UPPER-lower', 'none', 'latest', '00000000-0000-0000-0000-00000000000g', longest(300, 'slug-é')),
);

const mention = fc.record({
  kind: fc.constantFrom('tracked', 'direct', 'indirect'),
  competitor: fc.nat(),
  brand: brandText(BOUND.brand),
  sentiment: fc.option(fc.integer({ min: -1000, max: 1000 }).map((n) => n / 1000)),
});
const citation = fc.record({ domain: fc.constantFrom(...DOMAINS), url: fc.constantFrom(...URLS) });
const extraction = fc.record({
  outcome: fc.constantFrom('extracted', 'extracted', 'failed'),
  mentions: fc.array(mention, { maxLength: 4 }),
  citations: fc.array(citation, { maxLength: 3 }),
});
const answer = fc.record({
  prompt: fc.nat(),
  engine: fc.nat(),
  // Microseconds after the run's start: equal captures (within a run and across runs), the next UTC day.
  after: fc.constantFrom(0, 0, 1, 60_000_000, 86_400_000_000),
  text: text(BOUND.answer),
  first: extraction,
  redo: extraction,
});
const run = fc.record({
  day: fc.integer({ min: 0, max: 40 }),
  hour: fc.constantFrom(0, 6, 23),
  state: fc.constantFrom('finished', 'finished', 'finished', 'extracting', 'collecting', 'failed'),
  collectedBeforeFailing: fc.boolean(),
  reextract: fc.boolean(),
  // The run also asks engines the analysis does not configure (they are reported after the configured ones).
  otherEngines: fc.boolean(),
  recipe: fc.constantFrom(...RECIPES),
  answers: fc.array(answer, { maxLength: 8 }),
});
const analysis = fc.record({
  slug: SLUGS,
  name,
  owned: fc.subarray(DOMAINS),
  engines: fc.integer({ min: 1, max: 2 }),
  competitors: fc.uniqueArray(fc.record({ name: brandText(BOUND.brand), domain: fc.option(fc.constantFrom(...DOMAINS)) }), {
    maxLength: 2,
    selector: (c) => c.name,
  }),
  groups: fc.array(fc.record({ name }), { maxLength: 3 }),
  prompts: fc.array(fc.record({ group: fc.option(fc.nat()), text: text(BOUND.prompt), created: fc.constantFrom(0, 0, 1) }), {
    maxLength: 4,
  }),
  runs: fc.array(run, { maxLength: 3 }),
  moves: fc.array(fc.record({ prompt: fc.nat(), to: fc.option(fc.nat()) }), { maxLength: 3 }),
  empty: fc.option(fc.nat()),
});

/** How many identifiers one dataset can use at most, with the sizes above. */
const IDS = 80;

export interface DatasetSpec {
  engines: string[];
  analyses: Array<typeof analysis extends fc.Arbitrary<infer T> ? T : never>;
  ids: string[];
}

export const datasetArb: fc.Arbitrary<DatasetSpec> = fc.record({
  engines: fc.uniqueArray(fc.constantFrom(...ENGINE_KEYS), { minLength: 1, maxLength: 2 }),
  analyses: fc.uniqueArray(analysis, { minLength: 1, maxLength: 2, selector: (a) => a.slug }),
  ids: fc.uniqueArray(anyId, { minLength: IDS, maxLength: IDS }),
});

// ---------------------------------------------------------------------------------------------------
// The rows a dataset makes, in the contract's terms

export interface Mention {
  position: number;
  brand: string;
  tracked: boolean;
  competitor: string | null;
  sentiment: number | null;
}
export interface Citation {
  ordinal: number;
  url: string;
  domain: string;
}
export interface AnswerRow {
  id: string;
  run: string;
  prompt: string;
  engine: string;
  capturedAt: string;
  /** Microseconds since the epoch: the keyset order of the answer list. */
  at: bigint;
  text: string;
  state: 'pending' | 'extracted' | 'failed';
  mentions: Mention[];
  citations: Citation[];
}
export interface RunRow {
  id: string;
  state: 'collecting' | 'extracting' | 'finished' | 'failed';
  startedAt: string;
  collected: boolean;
  engines: Array<{ engine: string; expected: number; collected: number; extracted: number; failed: number }>;
  recipe: string;
  reextract: boolean;
}
export interface AnalysisRows {
  id: string;
  slug: string;
  name: string;
  owned: string[];
  engines: string[];
  competitors: Array<{ id: string; name: string; domain: string | null }>;
  groups: Array<{ id: string; name: string }>;
  prompts: Array<{ id: string; text: string; createdAt: string; group: string | null; finalGroup: string | null }>;
  runs: RunRow[];
  /** Final state, after any re-extraction. */
  answers: AnswerRow[];
  /** State before re-extraction (what finish_run_extraction first saw). */
  firstAnswers: AnswerRow[];
}
export interface Dataset {
  secret: string;
  workspace: string;
  user: string;
  brand: string;
  key: string;
  engines: string[];
  analyses: AnalysisRows[];
}

const BASE_DAY = Date.UTC(2024, 11, 20);
const micros = (ms: number) => BigInt(ms) * 1000n;
const isoMicros = (us: bigint) => {
  const ms = Number(us / 1000n);
  const rest = (us % 1000n).toString().padStart(3, '0');
  return `${new Date(ms).toISOString().slice(0, 23)}${rest}Z`;
};

/** Turns a generated spec into the rows the pipeline writes (identifiers from the spec's pool, nil never a group's). */
export function materialise(spec: DatasetSpec, n: number): Dataset {
  const pool = [...spec.ids];
  const take = (allowNil = true): string => {
    const i = allowNil ? 0 : pool.findIndex((x) => x !== NIL);
    const [id] = pool.splice(i, 1);
    if (id === undefined) throw new Error('identifier pool exhausted: raise IDS');
    return id;
  };
  const secret = `geo_live_Property${String(n).padStart(8, '0')}0000000000000000000000`;
  const ds: Dataset = { secret, workspace: take(), user: take(), brand: take(), key: take(), engines: spec.engines, analyses: [] };
  for (const a of spec.analyses) {
    const engines = spec.engines.slice(0, a.engines);
    const competitors = a.competitors.map((c) => ({ id: take(), name: c.name, domain: c.domain }));
    const groups = a.groups.map((g) => ({ id: take(false), name: g.name }));
    const prompts = a.prompts.map((p) => {
      const group = p.group === null || groups.length === 0 ? null : (groups[p.group % groups.length]?.id ?? null);
      return {
        id: take(),
        text: p.text,
        createdAt: new Date(BASE_DAY - 86_400_000 + p.created * 1000).toISOString(),
        group,
        finalGroup: group,
      };
    });
    for (const m of a.moves) {
      const p = prompts[m.prompt % Math.max(prompts.length, 1)];
      if (p) p.finalGroup = m.to === null || groups.length === 0 ? null : (groups[m.to % groups.length]?.id ?? null);
    }
    if (a.empty !== null && groups.length > 0) {
      const emptied = groups[a.empty % groups.length]?.id;
      for (const p of prompts) if (p.finalGroup === emptied) p.finalGroup = null;
    }
    const rows: AnalysisRows = {
      id: take(),
      slug: a.slug,
      name: a.name,
      owned: a.owned,
      engines,
      competitors,
      groups,
      prompts,
      runs: [],
      answers: [],
      firstAnswers: [],
    };
    for (const r of a.runs) {
      const start = micros(BASE_DAY + r.day * 86_400_000 + r.hour * 3_600_000);
      const runId = take();
      const collected = r.state === 'extracting' || r.state === 'finished' || (r.state === 'failed' && r.collectedBeforeFailing);
      const answers = prompts.length === 0 ? [] : r.answers;
      const runEngines = r.otherEngines ? spec.engines : engines;
      const toRow = (x: (typeof answers)[number], version: 'first' | 'redo', id: string): AnswerRow => {
        const e = x[version];
        const state: AnswerRow['state'] =
          r.state === 'finished'
            ? (e.outcome as 'extracted' | 'failed')
            : r.state === 'extracting' && e.outcome === 'extracted'
              ? 'extracted'
              : 'pending';
        const at = start + BigInt(x.after);
        return {
          id,
          run: runId,
          prompt: (prompts[x.prompt % prompts.length] as { id: string }).id,
          engine: runEngines[x.engine % runEngines.length] as string,
          capturedAt: isoMicros(at),
          at,
          text: x.text,
          state,
          mentions:
            state === 'extracted'
              ? e.mentions.map((m, i) => ({
                  position: i + 1,
                  brand: m.brand,
                  tracked: m.kind === 'tracked',
                  competitor:
                    m.kind === 'direct' && competitors.length > 0 ? (competitors[m.competitor % competitors.length]?.id ?? null) : null,
                  sentiment: m.sentiment,
                }))
              : [],
          citations: state === 'extracted' ? e.citations.map((c, i) => ({ ordinal: i + 1, url: c.url, domain: c.domain })) : [],
        };
      };
      const ids = answers.map(() => take());
      const first = answers.map((x, i) => toRow(x, 'first', ids[i] as string));
      const reextract = r.state === 'finished' && r.reextract;
      const final = reextract ? answers.map((x, i) => toRow(x, 'redo', ids[i] as string)) : first;
      rows.firstAnswers.push(...first);
      rows.answers.push(...final);
      rows.runs.push({
        id: runId,
        state: r.state as RunRow['state'],
        startedAt: isoMicros(start),
        collected,
        recipe: r.recipe,
        reextract,
        engines: runEngines.map((engine) => {
          const mine = final.filter((x) => x.engine === engine);
          const expected = Math.max(prompts.length, mine.length);
          return {
            engine,
            expected,
            collected: mine.length,
            extracted: mine.filter((x) => x.state === 'extracted').length,
            failed: expected - mine.length,
          };
        }),
      });
    }
    ds.analyses.push(rows);
  }
  return ds;
}

// ---------------------------------------------------------------------------------------------------
// The writer: what the pipeline and the product write, in the contract's order

/** Empties every table but the migrations' record, so identifiers can repeat from one dataset to the next. */
export async function wipe(db: Queryable): Promise<void> {
  const tables = (
    await db.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'`)
  ).rows.map((r) => r.t);
  await db.query(`TRUNCATE ${tables.join(', ')} CASCADE`);
}

export async function writeDataset(db: Queryable, ds: Dataset): Promise<void> {
  const q = (sql: string, params: unknown[] = []) => db.query(sql, params);
  await q(`INSERT INTO plans (key, label, api_access, calls_per_minute) VALUES ('property', 'Property', true, 1000000)`);
  await q(
    `INSERT INTO workspaces (id, name, slug, plan_key, created_at) VALUES ($1, 'Property', 'property', 'property', '2024-01-01T00:00:00Z')`,
    [ds.workspace],
  );
  await q(`INSERT INTO users (id, email, name) VALUES ($1, 'owner@property.test', 'Owner')`, [ds.user]);
  await q(`INSERT INTO members (workspace_id, user_id, role, joined_at) VALUES ($1, $2, 'owner', '2024-01-01T00:00:00Z')`, [
    ds.workspace,
    ds.user,
  ]);
  await q(`INSERT INTO brands (id, workspace_id, name, domain) VALUES ($1, $2, '${TRACKED_BRAND}', 'acme.com')`, [ds.brand, ds.workspace]);
  await q(
    `INSERT INTO api_keys (id, workspace_id, name, prefix, fingerprint, scope, created_by, created_at, expires_at)
     VALUES ($1, $2, 'property', $3, $4, 'workspace', $5, '2024-01-01T00:00:00Z', '2099-01-01T00:00:00Z')`,
    [ds.key, ds.workspace, visiblePrefix(ds.secret), fingerprint(ds.secret), ds.user],
  );
  for (const e of ds.engines) await q(`INSERT INTO engines (key, name) VALUES ($1, $2)`, [e, `Engine ${e}`]);
  for (const a of ds.analyses) {
    await q(
      `INSERT INTO analyses (id, workspace_id, brand_id, slug, name, owned_domains, engines, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, '2024-06-01T00:00:00Z')`,
      [a.id, ds.workspace, ds.brand, a.slug, a.name, a.owned, a.engines],
    );
    for (const c of a.competitors) {
      await q(`INSERT INTO competitors (id, analysis_id, name, domain) VALUES ($1, $2, $3, $4)`, [c.id, a.id, c.name, c.domain]);
    }
    for (const g of a.groups) {
      await q(`INSERT INTO prompt_groups (id, analysis_id, name, created_at) VALUES ($1, $2, $3, '2024-06-01T00:00:00Z')`, [
        g.id,
        a.id,
        g.name,
      ]);
    }
    for (const p of a.prompts) {
      await q(`INSERT INTO prompts (id, analysis_id, group_id, text, language, created_at) VALUES ($1, $2, $3, $4, 'en', $5)`, [
        p.id,
        a.id,
        p.group,
        p.text,
        p.createdAt,
      ]);
    }
    for (const r of a.runs) {
      const answers = a.firstAnswers.filter((x) => x.run === r.id);
      await writeRun(db, a, r, answers);
      if (r.reextract)
        await reextract(
          db,
          a,
          r,
          a.answers.filter((x) => x.run === r.id),
        );
    }
    // Prompts moved between groups after their runs (the trigger of migration 005 moves their figures).
    for (const p of a.prompts) {
      if (p.finalGroup !== p.group) await q(`UPDATE prompts SET group_id = $2 WHERE id = $1`, [p.id, p.finalGroup]);
    }
  }
}

async function writeMentions(db: Queryable, x: AnswerRow): Promise<void> {
  for (const m of x.mentions) {
    await db.query(
      `INSERT INTO mentions (answer_id, position, brand_name, is_tracked, competitor_id, sentiment) VALUES ($1, $2, $3, $4, $5, $6)`,
      [x.id, m.position, m.brand, m.tracked, m.competitor, m.sentiment],
    );
  }
  for (const c of x.citations) {
    await db.query(`INSERT INTO citations (answer_id, ordinal, url, domain) VALUES ($1, $2, $3, $4)`, [x.id, c.ordinal, c.url, c.domain]);
  }
}

async function writeRun(db: Queryable, a: AnalysisRows, r: RunRow, answers: AnswerRow[]): Promise<void> {
  const q = (sql: string, params: unknown[] = []) => db.query(sql, params);
  // 1. Start.
  await q(`INSERT INTO runs (id, analysis_id, state, started_at) VALUES ($1, $2, 'collecting', $3)`, [r.id, a.id, r.startedAt]);
  for (const e of r.engines) {
    await q(
      `INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed) VALUES ($1, $2, 'collecting', $3, 0, 0, 0)`,
      [r.id, e.engine, e.expected],
    );
  }
  // 2. Collect.
  for (const x of answers) {
    await q(
      `INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state) VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending')`,
      [x.id, a.id, r.id, x.prompt, x.engine, x.capturedAt, x.text],
    );
  }
  for (const e of r.engines) {
    await q(`UPDATE run_engines SET collected = $3, failed = $4 WHERE run_id = $1 AND engine = $2`, [
      r.id,
      e.engine,
      e.collected,
      e.failed,
    ]);
  }
  const end = `(${`'${r.startedAt}'::timestamptz`} + interval '30 minutes')`;
  // 3. Collection ends.
  if (r.collected) {
    await q(`UPDATE runs SET state = 'extracting', collected_at = ${end} WHERE id = $1`, [r.id]);
    await q(`UPDATE run_engines SET state = 'extracting' WHERE run_id = $1`, [r.id]);
  }
  // 4. Extract (the answers already extracted when a run is still extracting, or all of them).
  if (r.state === 'extracting' || r.state === 'finished') {
    for (const x of answers) {
      if (x.state === 'pending') continue;
      await writeMentions(db, x);
      await q(`UPDATE answers SET extraction_state = $2, recipe = $3 WHERE id = $1`, [
        x.id,
        x.state,
        x.state === 'extracted' ? r.recipe : null,
      ]);
    }
  }
  if (r.state === 'finished') {
    // 5. Finish, in one transaction.
    for (const e of r.engines) {
      const extracted = answers.filter((x) => x.engine === e.engine && x.state === 'extracted').length;
      await q(`UPDATE run_engines SET state = 'done', extracted = $3, recipe = $4 WHERE run_id = $1 AND engine = $2`, [
        r.id,
        e.engine,
        extracted,
        r.recipe,
      ]);
    }
    await q('BEGIN');
    await q(`UPDATE runs SET state = 'finished', finished_at = ${end} + interval '30 minutes' WHERE id = $1`, [r.id]);
    await q('SELECT finish_run_extraction($1)', [r.id]);
    await q('COMMIT');
  } else if (r.state === 'failed') {
    await q(`UPDATE runs SET state = 'failed' WHERE id = $1`, [r.id]);
    await q(`UPDATE run_engines SET state = 'failed' WHERE run_id = $1`, [r.id]);
  }
}

/** Re-extraction (docs/data-contract.md#re-extraction-and-corrections): one transaction, then the function again. */
async function reextract(db: Queryable, _a: AnalysisRows, r: RunRow, answers: AnswerRow[]): Promise<void> {
  const q = (sql: string, params: unknown[] = []) => db.query(sql, params);
  await q('BEGIN');
  for (const x of answers) {
    await q('DELETE FROM mentions WHERE answer_id = $1', [x.id]);
    await q('DELETE FROM citations WHERE answer_id = $1', [x.id]);
    await writeMentions(db, x);
    await q(`UPDATE answers SET extraction_state = $2, recipe = $3 WHERE id = $1`, [
      x.id,
      x.state,
      x.state === 'extracted' ? r.recipe : null,
    ]);
  }
  for (const e of r.engines) {
    await q(`UPDATE run_engines SET extracted = $3 WHERE run_id = $1 AND engine = $2`, [r.id, e.engine, e.extracted]);
  }
  await q('SELECT finish_run_extraction($1)', [r.id]);
  await q('COMMIT');
}

// ---------------------------------------------------------------------------------------------------
// Figures worked out again from the rows (window=all: every collected run; docs/figures.md)

export interface Sums {
  answers: number;
  extracted: number;
  mentioned: number;
  trackedMentions: number;
  brandMentions: number;
  positionSum: number;
  positionN: number;
  sentimentSum: number;
  sentimentN: number;
  citations: number;
  owned: number;
}
const zero = (): Sums => ({
  answers: 0,
  extracted: 0,
  mentioned: 0,
  trackedMentions: 0,
  brandMentions: 0,
  positionSum: 0,
  positionN: 0,
  sentimentSum: 0,
  sentimentN: 0,
  citations: 0,
  owned: 0,
});

/** Sums over the answers chosen by `pick`, of every collected run: measures from finished runs only. */
export function sumsOf(a: AnalysisRows, pick: (x: AnswerRow) => boolean): Sums {
  const s = zero();
  const runs = new Map(a.runs.map((r) => [r.id, r]));
  for (const x of a.answers) {
    const r = runs.get(x.run) as RunRow;
    if (!r.collected || !pick(x)) continue;
    s.answers += 1;
    if (r.state !== 'finished' || x.state !== 'extracted') continue;
    s.extracted += 1;
    const tracked = x.mentions.filter((m) => m.tracked);
    if (tracked.length > 0) {
      s.mentioned += 1;
      s.positionSum += Math.min(...tracked.map((m) => m.position));
      s.positionN += 1;
    }
    s.trackedMentions += tracked.length;
    s.brandMentions += x.mentions.length;
    for (const m of tracked) {
      if (m.sentiment === null) continue;
      s.sentimentSum += m.sentiment;
      s.sentimentN += 1;
    }
    s.citations += x.citations.length;
    s.owned += x.citations.filter((c) => a.owned.includes(c.domain)).length;
  }
  return s;
}

const round6 = (v: number) => Math.round(v * 1e6) / 1e6;
const ratio = (k: number, n: number) => (n === 0 ? null : round6(k / n));

/** The headline figures the API must serve for these sums: counts exactly, values to 6 decimals. */
export function expectedHeadline(s: Sums, owned: boolean) {
  return {
    answers: s.answers,
    extracted_answers: s.extracted,
    visibility: { numerator: s.mentioned, denominator: s.extracted, value: ratio(s.mentioned, s.extracted) },
    share_of_voice: { numerator: s.trackedMentions, denominator: s.brandMentions, value: ratio(s.trackedMentions, s.brandMentions) },
    average_position: { count: s.positionN, value: ratio(s.positionSum, s.positionN) },
    sentiment: { count: s.sentimentN, value: ratio(s.sentimentSum, s.sentimentN) },
    source_share: owned
      ? { numerator: s.owned, denominator: s.citations, value: ratio(s.owned, s.citations) }
      : { value: null, null_reason: 'no_owned_domains' },
  };
}

interface Rate {
  value: number | null;
  numerator: number;
  denominator: number;
}
interface Mean {
  value: number | null;
  count: number;
}
export interface HeadlineLike {
  answers: number;
  extracted_answers: number;
  visibility: Rate;
  share_of_voice: Rate;
  average_position: Mean;
  sentiment: Mean;
  source_share: Rate & { null_reason: string | null };
}

/** The same fields of a served headline (values to 6 decimals; float sums may differ in the last bit). */
export function servedHeadline(h: HeadlineLike, owned: boolean) {
  const v = (x: number | null) => (x === null ? null : round6(x));
  return {
    answers: h.answers,
    extracted_answers: h.extracted_answers,
    visibility: { numerator: h.visibility.numerator, denominator: h.visibility.denominator, value: v(h.visibility.value) },
    share_of_voice: { numerator: h.share_of_voice.numerator, denominator: h.share_of_voice.denominator, value: v(h.share_of_voice.value) },
    average_position: { count: h.average_position.count, value: v(h.average_position.value) },
    sentiment: { count: h.sentiment.count, value: v(h.sentiment.value) },
    source_share: owned
      ? { numerator: h.source_share.numerator, denominator: h.source_share.denominator, value: v(h.source_share.value) }
      : { value: h.source_share.value, null_reason: h.source_share.null_reason },
  };
}

/** Coverage per engine: run_engines of collected runs; extracted = extracted answers of finished runs. */
export function expectedCoverage(a: AnalysisRows) {
  const out = new Map<string, { expected: number; collected: number; extracted: number; failed: number }>();
  for (const e of a.engines) out.set(e, { expected: 0, collected: 0, extracted: 0, failed: 0 });
  for (const r of a.runs) {
    if (!r.collected) continue;
    for (const e of r.engines) {
      const c = out.get(e.engine) ?? { expected: 0, collected: 0, extracted: 0, failed: 0 };
      c.expected += e.expected;
      c.collected += e.collected;
      c.failed += e.failed;
      if (r.state === 'finished')
        c.extracted += a.answers.filter((x) => x.run === r.id && x.engine === e.engine && x.state === 'extracted').length;
      out.set(e.engine, c);
    }
  }
  return Object.fromEntries(out);
}

/** Cited domains of extracted answers of finished runs: citations and answers citing each. */
export function expectedSources(a: AnalysisRows) {
  const finished = new Set(a.runs.filter((r) => r.state === 'finished').map((r) => r.id));
  const by = new Map<string, { citations: number; answers: number }>();
  for (const x of a.answers) {
    if (!finished.has(x.run) || x.state !== 'extracted') continue;
    const seen = new Set<string>();
    for (const c of x.citations) {
      const d = by.get(c.domain) ?? { citations: 0, answers: 0 };
      d.citations += 1;
      if (!seen.has(c.domain)) d.answers += 1;
      seen.add(c.domain);
      by.set(c.domain, d);
    }
  }
  return Object.fromEntries([...by.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
}

/** The tracked brand's name as configured (writeDataset). */
export const TRACKED_BRAND = 'Tracked';

/**
 * Brands named in extracted answers of finished runs, by the name the competitor read reports: the tracked
 * brand under its configured name, a direct competitor under its configured name, any other brand as named.
 * Each answer counts once per brand in `answers`, whatever spellings it used.
 */
export function expectedBrands(a: AnalysisRows) {
  const finished = new Set(a.runs.filter((r) => r.state === 'finished').map((r) => r.id));
  const names = new Map(a.competitors.map((c) => [c.id, c.name]));
  const by = new Map<string, { mentions: number; answers: number }>();
  for (const x of a.answers) {
    if (!finished.has(x.run) || x.state !== 'extracted') continue;
    const seen = new Set<string>();
    for (const m of x.mentions) {
      const name = m.tracked ? TRACKED_BRAND : m.competitor ? (names.get(m.competitor) as string) : m.brand;
      const b = by.get(name) ?? { mentions: 0, answers: 0 };
      b.mentions += 1;
      if (!seen.has(name)) b.answers += 1;
      seen.add(name);
      by.set(name, b);
    }
  }
  return by;
}

/**
 * The share of voice on the direct universe (window=all): the tracked brand's mentions over its own and the
 * direct competitors' mentions in extracted answers of finished runs, and how many other brands were named.
 */
export function expectedDirectShare(a: AnalysisRows) {
  const finished = new Set(a.runs.filter((r) => r.state === 'finished').map((r) => r.id));
  let tracked = 0;
  let direct = 0;
  const discovered = new Set<string>();
  for (const x of a.answers) {
    if (!finished.has(x.run) || x.state !== 'extracted') continue;
    for (const m of x.mentions) {
      if (m.tracked) tracked += 1;
      else if (m.competitor) direct += 1;
      else discovered.add(m.brand);
    }
  }
  return {
    numerator: tracked,
    denominator: tracked + direct,
    universe: { direct: a.competitors.length, discovered: discovered.size },
  };
}

/** Citations per source category (window=all): owned domains, the direct competitors' domains, the rest. */
export function expectedCategories(a: AnalysisRows) {
  const owned = new Set(a.owned);
  const competitor = new Set(a.competitors.map((c) => c.domain).filter((d): d is string => d !== null));
  const out = { owned: 0, competitor: 0, other: 0, all: 0 };
  for (const [domain, s] of Object.entries(expectedSources(a))) {
    out[owned.has(domain) ? 'owned' : competitor.has(domain) ? 'competitor' : 'other'] += s.citations;
    out.all += s.citations;
  }
  return out;
}
