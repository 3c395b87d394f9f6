import { MEASURES } from '../reads/figures/load.js';
import type { Queryable } from '../store/queryable.js';

/**
 * Every table the store keeps from other rows, recomputed from those rows and compared: the tables the
 * triggers keep (per-day answer counts, analysis counts, prompt counts, the group rows a prompt's move
 * shifts, the runs' summary rows), every month row (the sum of its month's run rows, which
 * finish_run_extraction computes from the raw answers, mentions and citations), and the runs' rows per
 * prompt, brands per prompt and cited domains (from the raw answers, mentions and citations). A writer that disables triggers (session_replication_role =
 * replica: DMS, logical replication, pg_restore --disable-triggers) leaves the first kind stale; a month
 * row can only drift through a fault the store could not see. With
 * `repair`, each drifted row is set to its recomputation, table by table, each in a transaction that
 * holds off the writers of the table and of what it is computed from (readers go on); a run whose raw
 * rows changed since its finish is finished again instead (refinish), which rewrites every row of the
 * run: its rows per engine and per brand are their sums, so they are not compared on their own.
 * docs/administration.md, "Verifying the aggregates".
 */

const NIL = `'00000000-0000-0000-0000-000000000000'::uuid`;
const ENGINE_MEASURES = ['expected', 'collected', 'failed', ...MEASURES];
const BRAND_MEASURES = ['mentions', 'answers', 'position_sum', 'position_n', 'position_sq'];
const SUMMARY = ['recipes_digest', 'engine_rows', ...MEASURES];
/** A run's measures per prompt as its raw rows give them, whatever the owned domains are now. */
const RAW_PROMPT_MEASURES = MEASURES.filter((m) => m !== 'owned_citations');

interface Check {
  table: string;
  /** The primary key. */
  keys: string[];
  /** The columns compared. */
  values: readonly string[];
  /** Columns written with a repaired row but not compared (a brand's kind, a row's analysis and day). */
  extra?: string[];
  /** The recomputation: keys, values and extra, by those names. */
  expected: string;
  /** The tables it is computed from (held off from writing while a repair runs). */
  from: string[];
  /**
   * A stored row the recomputation lacks: 'zero' when a row of zeros is what the store itself leaves (a
   * count or a month emptied), 'delete' when only rows above zero exist (answer_days), 'keep' when the
   * recomputation covers exactly the stored rows (the runs' summaries).
   */
  absent: 'zero' | 'delete' | 'keep';
  /**
   * Rows recomputed from the raw answers and mentions: their drift means a finished run's raw rows changed
   * since its finish, which every row of that run then misses (its brand rows too, which no check
   * recomputes from the raw rows). Repaired by finishing those runs again (finish_runs_extraction), never
   * by setting these rows alone, which would leave the run's other rows saying otherwise.
   */
  refinish?: true;
}

const sums = (cols: readonly string[], from = '') => cols.map((c) => `sum(${from}${c}) AS ${c}`).join(', ');
const month = (col: string) => `date_trunc('month', ${col})::date`;

export const CHECKS: readonly Check[] = [
  {
    table: 'answer_days',
    keys: ['analysis_id', 'day'],
    values: ['answers'],
    expected: `SELECT analysis_id, (captured_at AT TIME ZONE 'UTC')::date AS day, count(*)::integer AS answers FROM answers GROUP BY 1, 2`,
    from: ['answers'],
    absent: 'delete',
  },
  {
    table: 'analysis_counts',
    keys: ['workspace_id', 'brand_id'],
    values: ['n'],
    expected: `SELECT workspace_id, brand_id, count(*)::integer AS n FROM analyses GROUP BY 1, 2`,
    from: ['analyses'],
    absent: 'zero',
  },
  {
    table: 'prompt_group_counts',
    keys: ['analysis_id', 'group_key'],
    values: ['n'],
    expected: `SELECT analysis_id, coalesce(group_id, ${NIL}) AS group_key, count(*)::integer AS n FROM prompts GROUP BY 1, 2`,
    from: ['prompts'],
    absent: 'zero',
  },
  {
    table: 'prompt_totals',
    keys: ['analysis_id'],
    values: ['n'],
    expected: `SELECT analysis_id, count(*)::integer AS n FROM prompts GROUP BY 1`,
    from: ['prompts'],
    absent: 'zero',
  },
  {
    // Each finished run's rows per prompt and engine, recomputed from its raw answers, mentions and
    // citations as finish_run_extraction computes them (fig_write_run_rows, migration 020), for every run
    // with a summary row (every run finished through the function): a run whose answers, tracked mentions
    // or citations changed without a finish differs. The owned citations are not compared: they follow
    // the analysis's owned domains at the run's finish, and changing those since is no drift.
    table: 'fig_run_prompt',
    keys: ['run_id', 'prompt_id', 'engine'],
    values: RAW_PROMPT_MEASURES,
    expected: `SELECT a.run_id, a.prompt_id, a.engine, count(*)::integer AS answers, count(*) FILTER (WHERE a.ok)::integer AS extracted,
                      count(*) FILTER (WHERE a.ok AND a.tracked_n > 0)::integer AS mentioned, sum(a.tracked_n)::integer AS tracked_mentions,
                      sum(a.brand_n)::integer AS brand_mentions, coalesce(sum(a.first_pos), 0)::bigint AS position_sum,
                      count(a.first_pos)::integer AS position_n, sum(a.sent_sum) AS sentiment_sum, sum(a.sent_n)::integer AS sentiment_n,
                      sum(a.cit_n)::integer AS citations, coalesce(sum(a.first_pos::bigint * a.first_pos), 0)::bigint AS position_sq,
                      sum(a.sent_sq) AS sentiment_sq
                 FROM (SELECT x.run_id, x.prompt_id, x.engine, x.extraction_state = 'extracted' AS ok,
                              coalesce(m.tracked_n, 0) AS tracked_n, coalesce(m.brand_n, 0) AS brand_n, m.first_pos,
                              coalesce(m.sent_sum, 0) AS sent_sum, coalesce(m.sent_n, 0) AS sent_n, coalesce(m.sent_sq, 0) AS sent_sq,
                              coalesce(c.cit_n, 0) AS cit_n
                         FROM fig_run_prompts f JOIN answers x ON x.run_id = f.run_id
                         LEFT JOIN LATERAL (
                           SELECT count(*) FILTER (WHERE m.is_tracked) AS tracked_n, count(*) AS brand_n,
                                  min(m.position) FILTER (WHERE m.is_tracked) AS first_pos,
                                  sum(m.sentiment) FILTER (WHERE m.is_tracked) AS sent_sum,
                                  sum(m.sentiment * m.sentiment) FILTER (WHERE m.is_tracked) AS sent_sq,
                                  count(m.sentiment) FILTER (WHERE m.is_tracked) AS sent_n
                             FROM mentions m WHERE m.answer_id = x.id AND x.extraction_state = 'extracted'
                         ) m ON true
                         LEFT JOIN LATERAL (
                           SELECT count(*) AS cit_n FROM citations c WHERE c.answer_id = x.id AND x.extraction_state = 'extracted'
                         ) c ON true) a
                GROUP BY 1, 2, 3`,
    from: ['fig_run_prompts', 'answers', 'mentions', 'citations'],
    absent: 'delete',
    refinish: true,
  },
  {
    // Each finished run's cited domains, recomputed from its raw citations as finish_run_extraction
    // computes them: a citation added, removed or moved to another domain without a finish differs.
    table: 'fig_run_domain',
    keys: ['run_id', 'domain'],
    values: ['citations', 'answers'],
    expected: `SELECT f.run_id, c.domain, sum(c.n)::integer AS citations, count(*)::integer AS answers
                 FROM fig_run_prompts f
                 JOIN answers x ON x.run_id = f.run_id AND x.extraction_state = 'extracted'
                 CROSS JOIN LATERAL (SELECT c.domain, count(*) AS n FROM citations c WHERE c.answer_id = x.id GROUP BY c.domain) c
                GROUP BY 1, 2`,
    from: ['fig_run_prompts', 'answers', 'citations'],
    absent: 'delete',
    refinish: true,
  },
  {
    // The group rows of a run are its prompts' rows summed by the group each prompt is in now
    // (prompts_group_moved shifts them when a prompt moves).
    table: 'fig_run_group',
    keys: ['run_id', 'group_key'],
    values: MEASURES,
    extra: ['analysis_id', 'day'],
    expected: `SELECT q.run_id, coalesce(p.group_id, ${NIL}) AS group_key, ${sums(MEASURES, 'q.')},
                      min(q.analysis_id::text)::uuid AS analysis_id, min(q.day) AS day
                 FROM fig_run_prompt q JOIN prompts p ON p.id = q.prompt_id GROUP BY 1, 2`,
    from: ['fig_run_prompt', 'prompts'],
    absent: 'zero',
  },
  {
    table: 'fig_run_prompts',
    keys: ['run_id'],
    values: SUMMARY,
    extra: ['analysis_id', 'day', 'digest', 'prompts', 'recipes'],
    expected: `SELECT f.run_id, f.analysis_id, f.day, f.digest, f.prompts, s.recipes, ${SUMMARY.map((c) => `s.${c}`).join(', ')}
                 FROM fig_run_prompts f CROSS JOIN LATERAL fig_run_summary(f.run_id) s`,
    from: ['fig_run_engine'],
    absent: 'keep',
  },
  {
    table: 'fig_month_engine',
    keys: ['analysis_id', 'month', 'engine'],
    values: ENGINE_MEASURES,
    expected: `SELECT analysis_id, ${month('day')} AS month, engine, ${sums(ENGINE_MEASURES)} FROM fig_run_engine GROUP BY 1, 2, 3`,
    from: ['fig_run_engine'],
    absent: 'zero',
  },
  {
    table: 'fig_month_recipe',
    keys: ['analysis_id', 'month', 'recipe'],
    values: ['n'],
    expected: `SELECT analysis_id, ${month('day')} AS month, recipe, count(*)::integer AS n FROM fig_run_engine
                WHERE recipe IS NOT NULL GROUP BY 1, 2, 3`,
    from: ['fig_run_engine'],
    absent: 'zero',
  },
  {
    table: 'fig_month_group',
    keys: ['analysis_id', 'month', 'group_key'],
    values: MEASURES,
    expected: `SELECT analysis_id, ${month('day')} AS month, group_key, ${sums(MEASURES)} FROM fig_run_group GROUP BY 1, 2, 3`,
    from: ['fig_run_group'],
    absent: 'zero',
  },
  {
    table: 'fig_month_prompt',
    keys: ['prompt_id', 'month', 'engine'],
    values: MEASURES,
    extra: ['analysis_id'],
    expected: `SELECT prompt_id, ${month('day')} AS month, engine, ${sums(MEASURES)}, min(analysis_id::text)::uuid AS analysis_id
                 FROM fig_run_prompt GROUP BY 1, 2, 3`,
    from: ['fig_run_prompt'],
    absent: 'zero',
  },
  {
    table: 'fig_month_brand',
    keys: ['analysis_id', 'month', 'brand'],
    values: BRAND_MEASURES,
    extra: ['is_tracked', 'competitor_id'],
    expected: `SELECT analysis_id, ${month('day')} AS month, brand, ${sums(BRAND_MEASURES)},
                      (array_agg(is_tracked ORDER BY day DESC, run_id DESC))[1] AS is_tracked,
                      (array_agg(competitor_id ORDER BY day DESC, run_id DESC))[1] AS competitor_id
                 FROM fig_run_brand GROUP BY 1, 2, 3`,
    from: ['fig_run_brand'],
    absent: 'zero',
  },
  {
    // The brands per prompt of every run the brand rows hold, recomputed from the raw answers and mentions
    // as finish_run_extraction computes them (fig_run_brand being their sum over prompts), each brand under
    // the name the run's brand rows give it (fig_prompt_brands_from_rows, migration 018: a rename since its
    // finish is no drift): a run the migration could not see, or whose raw rows changed without a finish,
    // differs.
    table: 'fig_run_prompt_brand',
    keys: ['run_id', 'prompt_id', 'brand'],
    values: BRAND_MEASURES,
    extra: ['analysis_id', 'day'],
    expected: 'SELECT * FROM fig_prompt_brands_from_rows()',
    from: ['fig_run_brand', 'answers', 'mentions'],
    absent: 'delete',
    refinish: true,
  },
  {
    table: 'fig_month_prompt_brand',
    keys: ['analysis_id', 'month', 'prompt_id', 'brand'],
    values: BRAND_MEASURES,
    expected: `SELECT analysis_id, ${month('day')} AS month, prompt_id, brand, ${sums(BRAND_MEASURES)}
                 FROM fig_run_prompt_brand GROUP BY 1, 2, 3, 4`,
    from: ['fig_run_prompt_brand'],
    absent: 'zero',
  },
  {
    table: 'fig_month_domain',
    keys: ['analysis_id', 'month', 'domain'],
    values: ['citations', 'answers'],
    expected: `SELECT analysis_id, ${month('day')} AS month, domain, ${sums(['citations', 'answers'])} FROM fig_run_domain GROUP BY 1, 2, 3`,
    from: ['fig_run_domain'],
    absent: 'zero',
  },
];

/** The tables holding a run's own aggregate rows, which finish_run_extraction writes. */
export const RUN_TABLES = [
  'fig_run_engine',
  'fig_run_group',
  'fig_run_prompt',
  'fig_run_brand',
  'fig_run_prompt_brand',
  'fig_run_domain',
  'fig_run_prompts',
];

/**
 * Runs not finished that hold aggregate rows: only a writer that disabled triggers can move a finished run
 * to another state (migration 025 refuses it otherwise). The reads count a run that is not finished from
 * its own volumes, so its rows would count its answers twice. Checked before the tables, and repaired by
 * removing the rows and settling their months again (fig_drop_run_rows), so the checks after it compare
 * the months without them.
 */
const STRAY_RUNS = `SELECT r.id AS run_id, r.state FROM runs r
  WHERE r.state <> 'finished' AND (${RUN_TABLES.map((t) => `EXISTS (SELECT 1 FROM ${t} x WHERE x.run_id = r.id)`).join(' OR ')})
  ORDER BY r.id`;

/** The drifted rows of one check: a FULL JOIN of the stored rows and their recomputation. */
function driftSql(c: Check): string {
  const cols = [...c.keys, ...c.values];
  const same = c.values.map((v) => `e.${v} IS NOT DISTINCT FROM s.${v}`).join(' AND ');
  const zeros = (side: string) => c.values.map((v) => (v.endsWith('digest') ? 'false' : `${side}.${v} = 0`)).join(' AND ');
  const missing: Record<Check['absent'], string> = {
    // A row of zeros stands for no row at all, either way round.
    zero: `(e.${c.keys[0]} IS NULL AND ${zeros('s')}) OR (s.${c.keys[0]} IS NULL AND ${zeros('e')})`,
    delete: 'false',
    keep: `e.${c.keys[0]} IS NULL`,
  };
  return `WITH e AS (${c.expected}), s AS (SELECT ${cols.join(', ')} FROM ${c.table}),
    drift AS (
      SELECT ${c.keys.map((k) => `coalesce(e.${k}, s.${k}) AS ${k}`).join(', ')},
             e.${c.keys[0]} IS NOT NULL AS recomputed,
             ${c.values.map((v) => `s.${v} AS stored_${v}, e.${v} AS expected_${v}`).join(', ')}
        FROM e FULL JOIN s ON ${c.keys.map((k) => `e.${k} = s.${k}`).join(' AND ')}
       WHERE NOT ((e.${c.keys[0]} IS NOT NULL AND s.${c.keys[0]} IS NOT NULL AND ${same}) OR ${missing[c.absent]}))`;
}

/** One statement that repairs what driftSql finds and returns the drifted rows. */
function repairSql(c: Check): string {
  const written = [...c.keys, ...c.values, ...(c.extra ?? [])];
  const on = (t: string) => c.keys.map((k) => `${t}.${k} = d.${k}`).join(' AND ');
  const gone =
    c.absent === 'delete'
      ? `DELETE FROM ${c.table} t USING drift d WHERE NOT d.recomputed AND ${on('t')} RETURNING 1`
      : `UPDATE ${c.table} t SET ${c.values.map((v) => `${v} = 0`).join(', ')} FROM drift d WHERE NOT d.recomputed AND ${on('t')} RETURNING 1`;
  return `${driftSql(c)},
    fixed AS (
      INSERT INTO ${c.table} AS t (${written.join(', ')})
      SELECT ${written.map((w) => `e.${w}`).join(', ')} FROM e JOIN drift d ON ${c.keys.map((k) => `e.${k} = d.${k}`).join(' AND ')}
      ON CONFLICT (${c.keys.join(', ')}) DO UPDATE SET ${[...c.values, ...(c.extra ?? [])].map((v) => `${v} = excluded.${v}`).join(', ')}
      RETURNING 1
    )${c.absent === 'keep' ? '' : `, gone AS (${gone})`}
    SELECT * FROM drift`;
}

export interface Drift {
  table: string;
  /** Drifted rows. */
  rows: number;
  /** The first of them: key, stored and recomputed values (null: no such row). */
  sample: Array<Record<string, unknown>>;
}

export interface VerifyOutcome {
  repaired: boolean;
  checked: string[];
  drift: Drift[];
}

const SAMPLE = 5;

/** What the step that looks for runs not finished holding aggregate rows reports as its table. */
const STRAY_RUNS_LABEL = 'runs (not finished, holding aggregate rows)';

/**
 * One step of the verification, in a transaction of its own: `work` sets the transaction up and returns
 * the drifted rows, which are added to `drift` under `name` once committed; an error rolls back and names
 * the step.
 */
async function step(db: Queryable, name: string, drift: Drift[], work: () => Promise<Array<Record<string, unknown>>>): Promise<void> {
  await db.query('BEGIN');
  try {
    const rows = await work();
    await db.query('COMMIT');
    if (rows.length > 0) drift.push({ table: name, rows: rows.length, sample: rows.slice(0, SAMPLE) });
  } catch (err) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw new Error(`verify-aggregates: ${name}: ${(err as Error).message}`);
  }
}

/**
 * Looks for runs not finished that hold aggregate rows (removing those rows with `repair`), then compares
 * every kept table with its recomputation, one table at a time (each in a REPEATABLE READ snapshot, so
 * rows a writer commits meanwhile are not taken for drift); with `repair`, sets each drifted row to its
 * recomputation under locks that stop the writers of that table and of its sources.
 */
export async function verifyAggregates(db: Queryable, opts: { repair: boolean }): Promise<VerifyOutcome> {
  const drift: Drift[] = [];
  await step(db, STRAY_RUNS_LABEL, drift, async () => {
    // A repair takes the runs' analyses' locks (fig_drop_run_rows); a report needs one snapshot only.
    if (!opts.repair) await db.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const { rows } = await db.query<{ run_id: string; state: string }>(STRAY_RUNS);
    if (opts.repair && rows.length > 0) await db.query('SELECT fig_drop_run_rows($1::uuid[])', [rows.map((r) => r.run_id)]);
    return rows;
  });
  for (const c of CHECKS) {
    await step(db, c.table, drift, async () => {
      const repairs = opts.repair && !c.refinish;
      const refinishes = opts.repair && c.refinish;
      if (repairs) {
        for (const t of c.from) await db.query(`LOCK TABLE ${t} IN SHARE MODE`);
        await db.query(`LOCK TABLE ${c.table} IN EXCLUSIVE MODE`);
      } else if (!refinishes) {
        await db.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      }
      // A refinish takes no table lock of its own: finish_runs_extraction takes its analyses' locks in its
      // one order, so it waits for a pipeline's finish (holding one of them, writing the tables a SHARE lock
      // would hold off) rather than deadlocking with it; a run finished meanwhile is finished again, idempotently.
      const { rows } = await db.query<Record<string, unknown>>(repairs ? repairSql(c) : `${driftSql(c)} SELECT * FROM drift`);
      if (refinishes && rows.length > 0)
        await db.query('SELECT finish_runs_extraction($1::uuid[])', [[...new Set(rows.map((r) => String(r.run_id)))]]);
      return rows;
    });
  }
  return { repaired: opts.repair, checked: CHECKS.map((c) => c.table), drift };
}

/** What an operator reads. */
export function describeVerify(out: VerifyOutcome): string {
  if (out.drift.length === 0)
    return `No drift: ${out.checked.length} tables equal their recomputation from the rows they are kept from, and no run that is not finished holds aggregate rows.`;
  const lines = out.drift.map((d) => {
    const first = d.sample[0] ?? {};
    return `  ${d.table}: ${d.rows} row${d.rows === 1 ? '' : 's'}${out.repaired ? ' repaired' : ''}, e.g. ${JSON.stringify(first)}`;
  });
  const total = out.drift.reduce((n, d) => n + d.rows, 0);
  return [
    `${out.repaired ? 'Repaired' : 'Drift found in'} ${total} row${total === 1 ? '' : 's'} of ${out.drift.length} table${out.drift.length === 1 ? '' : 's'}:`,
    ...lines,
    out.repaired ? 'Run it again to confirm: it should find no drift.' : 'Repair with: verify-aggregates --repair',
  ].join('\n');
}
