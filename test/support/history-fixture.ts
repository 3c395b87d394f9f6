import { fingerprint, visiblePrefix } from '../../shared/keys.js';
import type { Queryable } from '../../shared/store/queryable.js';

/**
 * Histories the product writes after the fact, in their own workspace (migration 005):
 *
 * Keys whose creator's access was interrupted and came back, by every path the product may take (dates set
 * by the product itself, or left for the trigger to stamp), and keys made after or before such an
 * interruption:
 *
 *   reinvited         key 2025-03-01; creator left 2025-04-01, re-invited 2025-05-01 (joined_at set)   dead
 *   reinvited_bare    same, but the product only cleared left_at (the trigger stamps joined_at)       dead
 *   unsuspended       key 2025-03-01; suspended 2025-04-01, lifted 2025-05-01 (resumed_at set)        dead
 *   unsuspended_bare  same, but the product only cleared suspended_at (the trigger stamps resumed_at) dead
 *   after_return      key 2025-06-01, made by the re-invited creator after coming back                alive
 *   before_gap        key 2025-06-01 by a creator suspended in 2025-01 and lifted 2025-02-01           alive
 *
 * Group moves: analysis hist-groups, groups G1 and G2, prompts q1, q2 (in G1) and q3 (in no group), three
 * runs over two months (2025-01-31, 2025-02-01, 2025-02-02), all extracted; then q2 moves G1 → G2, q3
 * none → G1, and q1 G1 → none → G1 (back where it was).
 *
 * hist-long: two finished collections, 2001-06-01 and 2025-06-01, and nothing else.
 */
export const HISTORY_WORKSPACE = 'history-fixture';
export const HISTORY_ANALYSIS = 'hist-groups';
/** Two collections 24 years apart: a history longer than a daily series returns (MAX_SERIES_DAYS). */
export const HISTORY_LONG = 'hist-long';
export const HISTORY_KEYS = {
  reinvited: 'geo_live_HistoryReinvited00000000000000000000000',
  reinvited_bare: 'geo_live_HistoryReinvitedBare0000000000000000000',
  unsuspended: 'geo_live_HistoryUnsuspended000000000000000000000',
  unsuspended_bare: 'geo_live_HistoryUnsuspendedBare00000000000000000',
  after_return: 'geo_live_HistoryAfterReturn000000000000000000000',
  before_gap: 'geo_live_HistoryBeforeGap0000000000000000000000',
} as const;
export type HistoryKey = keyof typeof HISTORY_KEYS;

const u = (kind: number, n: number) => `e${kind.toString(16).padStart(7, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

export const HISTORY_IDS = {
  workspace: u(1, 1),
  brand: u(3, 1),
  analysis: u(4, 1),
  long: u(4, 2),
  g1: u(6, 1),
  g2: u(6, 2),
  q1: u(7, 1),
  q2: u(7, 2),
  q3: u(7, 3),
  runs: [u(8, 1), u(8, 2), u(8, 3)] as const,
  longRuns: [u(8, 11), u(8, 12)] as const,
};

const USERS = ['reinvited', 'reinvited_bare', 'unsuspended', 'unsuspended_bare', 'before_gap'] as const;
const userId = (name: (typeof USERS)[number]) => u(2, USERS.indexOf(name) + 1);

const RUN_STARTS = ['2025-01-31T08:00:00Z', '2025-02-01T08:00:00Z', '2025-02-02T08:00:00Z'];
const PROMPTS = ['q1', 'q2', 'q3'] as const;
const ENGINES = ['chatgpt', 'perplexity'] as const;

export async function seedHistoryFixture(db: Queryable): Promise<void> {
  const q = (sql: string, params: unknown[] = []) => db.query(sql, params);
  const I = HISTORY_IDS;
  await q(`INSERT INTO plans (key, label, api_access, calls_per_minute) VALUES ('history_fixture', 'History fixture', true, 100000)`);
  await q(`INSERT INTO workspaces (id, name, slug, plan_key, created_at) VALUES ($1, 'History fixture', $2, 'history_fixture', '2024-12-01T00:00:00Z')`, [
    I.workspace,
    HISTORY_WORKSPACE,
  ]);
  for (const name of USERS) {
    await q(`INSERT INTO users (id, email, name) VALUES ($1, $2, $3)`, [userId(name), `${name}@history.test`, name]);
    await q(`INSERT INTO members (workspace_id, user_id, role, joined_at) VALUES ($1, $2, 'owner', '2024-12-01T00:00:00Z')`, [I.workspace, userId(name)]);
  }
  const key = async (label: HistoryKey, creator: (typeof USERS)[number], createdAt: string, n: number) =>
    q(
      `INSERT INTO api_keys (id, workspace_id, name, prefix, fingerprint, scope, created_by, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, 'workspace', $6, $7, '2099-01-01T00:00:00Z')`,
      [u(10, n), I.workspace, label, visiblePrefix(HISTORY_KEYS[label]), fingerprint(HISTORY_KEYS[label]), userId(creator), createdAt],
    );
  await key('reinvited', 'reinvited', '2025-03-01T00:00:00Z', 1);
  await key('reinvited_bare', 'reinvited_bare', '2025-03-01T00:00:00Z', 2);
  await key('unsuspended', 'unsuspended', '2025-03-01T00:00:00Z', 3);
  await key('unsuspended_bare', 'unsuspended_bare', '2025-03-01T00:00:00Z', 4);
  await key('before_gap', 'before_gap', '2025-06-01T00:00:00Z', 6);

  // Interruptions, then returns, written the way a product would.
  const member = (name: (typeof USERS)[number], set: string, params: unknown[] = []) =>
    q(`UPDATE members SET ${set} WHERE workspace_id = $1 AND user_id = $2`, [I.workspace, userId(name), ...params]);
  await member('reinvited', `left_at = '2025-04-01T00:00:00Z'`);
  await member('reinvited', `left_at = NULL, joined_at = '2025-05-01T00:00:00Z'`);
  await member('reinvited_bare', `left_at = '2025-04-01T00:00:00Z'`);
  await member('reinvited_bare', `left_at = NULL`);
  await member('unsuspended', `suspended_at = '2025-04-01T00:00:00Z'`);
  await member('unsuspended', `suspended_at = NULL, resumed_at = '2025-05-01T00:00:00Z'`);
  await member('unsuspended_bare', `suspended_at = '2025-04-01T00:00:00Z'`);
  await member('unsuspended_bare', `suspended_at = NULL`);
  await member('before_gap', `suspended_at = '2025-01-10T00:00:00Z'`);
  await member('before_gap', `suspended_at = NULL, resumed_at = '2025-02-01T00:00:00Z'`);
  await key('after_return', 'reinvited', '2025-06-01T00:00:00Z', 5);

  // Group moves.
  await q(`INSERT INTO brands (id, workspace_id, name, domain) VALUES ($1, $2, 'Histo', 'histo.com')`, [I.brand, I.workspace]);
  await q(
    `INSERT INTO analyses (id, workspace_id, brand_id, slug, name, owned_domains, engines, created_at)
     VALUES ($1, $2, $3, $4, 'Histo: moved prompts', '{histo.com}', '{chatgpt,perplexity}', '2025-01-01T00:00:00Z')`,
    [I.analysis, I.workspace, I.brand, HISTORY_ANALYSIS],
  );
  await q(`INSERT INTO prompt_groups (id, analysis_id, name, created_at) VALUES ($1, $3, 'G1', '2025-01-01T00:00:00Z'), ($2, $3, 'G2', '2025-01-01T00:00:00Z')`, [
    I.g1,
    I.g2,
    I.analysis,
  ]);
  await q(
    `INSERT INTO prompts (id, analysis_id, group_id, text, language, created_at) VALUES
       ($1, $4, $5, 'Which tool, q1?', 'en', '2025-01-01T01:00:00Z'),
       ($2, $4, $5, 'Which tool, q2?', 'en', '2025-01-01T02:00:00Z'),
       ($3, $4, NULL, 'Which tool, q3?', 'en', '2025-01-01T03:00:00Z')`,
    [I.q1, I.q2, I.q3, I.analysis, I.g1],
  );
  let n = 0;
  for (const [r, start] of RUN_STARTS.entries()) {
    const t = Date.parse(start);
    await q(`INSERT INTO runs (id, analysis_id, state, started_at, collected_at, finished_at) VALUES ($1, $2, 'finished', $3, $4, $5)`, [
      I.runs[r],
      I.analysis,
      start,
      new Date(t + 40 * 60_000).toISOString(),
      new Date(t + 60 * 60_000).toISOString(),
    ]);
    for (const engine of ENGINES) {
      await q(`INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed, recipe) VALUES ($1, $2, 'done', 3, 3, 3, 0, 'h-v1')`, [
        I.runs[r],
        engine,
      ]);
    }
    for (const [p, prompt] of PROMPTS.entries()) {
      for (const engine of ENGINES) {
        n += 1;
        const id = u(9, n);
        // Varied per (run, prompt, engine), so that a wrong group shows in every measure.
        const named = (r + p + (engine === 'chatgpt' ? 0 : 1)) % 3 !== 0;
        await q(
          `INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state, recipe)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 'extracted', 'h-v1')`,
          [id, I.analysis, I.runs[r], I[prompt], engine, new Date(t + n * 60_000).toISOString(), `Answer ${n}.`],
        );
        if (named) {
          await q(`INSERT INTO mentions (answer_id, position, brand_name, is_tracked, sentiment) VALUES ($1, 1, 'Rivo', false, NULL), ($1, 2, 'Histo', true, $2)`, [
            id,
            ((p + 1) * (r + 1)) / 10,
          ]);
        } else {
          await q(`INSERT INTO mentions (answer_id, position, brand_name, is_tracked) VALUES ($1, 1, 'Rivo', false)`, [id]);
        }
        await q(`INSERT INTO citations (answer_id, ordinal, url, domain) VALUES ($1, 1, $2, $3)`, [id, `https://x.test/${n}`, p === 1 ? 'histo.com' : 'g2.com']);
      }
    }
  }
  for (const run of I.runs) await q('SELECT finish_run_extraction($1)', [run]);

  await q(
    `INSERT INTO analyses (id, workspace_id, brand_id, slug, name, owned_domains, engines, created_at)
     VALUES ($1, $2, $3, $4, 'Histo: a long history', '{}', '{chatgpt}', '2001-01-01T00:00:00Z')`,
    [I.long, I.workspace, I.brand, HISTORY_LONG],
  );
  for (const [i, start] of ['2001-06-01T08:00:00Z', '2025-06-01T08:00:00Z'].entries()) {
    await q(`INSERT INTO runs (id, analysis_id, state, started_at, collected_at, finished_at) VALUES ($1, $2, 'finished', $3, $3, $3)`, [
      I.longRuns[i],
      I.long,
      start,
    ]);
    await q('SELECT finish_run_extraction($1)', [I.longRuns[i]]);
  }
  await q(`UPDATE prompts SET group_id = $2 WHERE id = $1`, [I.q2, I.g2]);
  await q(`UPDATE prompts SET group_id = $2 WHERE id = $1`, [I.q3, I.g1]);
  await q(`UPDATE prompts SET group_id = NULL WHERE id = $1`, [I.q1]);
  await q(`UPDATE prompts SET group_id = $2 WHERE id = $1`, [I.q1, I.g1]);
}

/**
 * Histories a product rewrites after the fact, each a key made 2025-03-01 by a creator who was an owner
 * since 2024-12-01, then (migration 008):
 *
 *   resumed_reset       suspended 04-01, lifted 05-01 (resumed_at set); suspended again 07-01 and lifted
 *                       with resumed_at = NULL (the product taking NULL for "not suspended")            dead
 *   resumed_backdated   suspended 04-01, lifted with resumed_at = 2025-01-01, before the suspension      dead
 *   rejoined_backdated  left 04-01, re-invited with joined_at = 2024-11-01, before the departure        dead
 *   resumed_erased      suspended 04-01, lifted 05-01; later resumed_at = NULL on the active member    refused, dead
 *   joined_backdated    left 04-01, re-invited 05-01; later joined_at = 2024-12-01                     refused, dead
 *   untouched           never interrupted                                                              alive
 *
 * Written through the owner connection before the service role takes over; the outcome of the last write
 * of each ('accepted' or the SQLSTATE that refused it) is returned.
 */
export const REWRITE_KEYS = {
  resumed_reset: 'geo_live_RewriteResumedReset0000000000000000000',
  resumed_backdated: 'geo_live_RewriteResumedBackdated000000000000000',
  rejoined_backdated: 'geo_live_RewriteRejoinedBackdated00000000000000',
  resumed_erased: 'geo_live_RewriteResumedErased000000000000000000',
  joined_backdated: 'geo_live_RewriteJoinedBackdated0000000000000000',
  untouched: 'geo_live_RewriteUntouched0000000000000000000000',
} as const;
export type RewriteKey = keyof typeof REWRITE_KEYS;

export async function seedRewrittenHistories(db: Queryable): Promise<Record<RewriteKey, string>> {
  const q = (sql: string, params: unknown[] = []) => db.query(sql, params);
  const workspace = u(1, 2);
  const labels = Object.keys(REWRITE_KEYS) as RewriteKey[];
  await q(`INSERT INTO plans (key, label, api_access, calls_per_minute) VALUES ('rewrite_fixture', 'Rewrite fixture', true, 100000)`);
  await q(`INSERT INTO workspaces (id, name, slug, plan_key, created_at) VALUES ($1, 'Rewrite fixture', 'rewrite-fixture', 'rewrite_fixture', '2024-12-01T00:00:00Z')`, [
    workspace,
  ]);
  const user = (label: RewriteKey) => u(2, 100 + labels.indexOf(label));
  for (const [i, label] of labels.entries()) {
    await q(`INSERT INTO users (id, email, name) VALUES ($1, $2, $3)`, [user(label), `${label}@rewrite.test`, label]);
    await q(`INSERT INTO members (workspace_id, user_id, role, joined_at) VALUES ($1, $2, 'owner', '2024-12-01T00:00:00Z')`, [workspace, user(label)]);
    await q(
      `INSERT INTO api_keys (id, workspace_id, name, prefix, fingerprint, scope, created_by, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, 'workspace', $6, '2025-03-01T00:00:00Z', '2099-01-01T00:00:00Z')`,
      [u(10, 100 + i), workspace, label, visiblePrefix(REWRITE_KEYS[label]), fingerprint(REWRITE_KEYS[label]), user(label)],
    );
  }
  const member = (label: RewriteKey, set: string) => q(`UPDATE members SET ${set} WHERE workspace_id = $1 AND user_id = $2`, [workspace, user(label)]);
  /** The last write of a history: its outcome, a refusal included. */
  const last = async (label: RewriteKey, set: string): Promise<string> => {
    try {
      await member(label, set);
      return 'accepted';
    } catch (err) {
      return String((err as { code?: string }).code);
    }
  };
  await member('resumed_reset', `suspended_at = '2025-04-01T00:00:00Z'`);
  await member('resumed_reset', `suspended_at = NULL, resumed_at = '2025-05-01T00:00:00Z'`);
  await member('resumed_reset', `suspended_at = '2025-07-01T00:00:00Z'`);
  await member('resumed_backdated', `suspended_at = '2025-04-01T00:00:00Z'`);
  await member('rejoined_backdated', `left_at = '2025-04-01T00:00:00Z'`);
  await member('resumed_erased', `suspended_at = '2025-04-01T00:00:00Z'`);
  await member('resumed_erased', `suspended_at = NULL, resumed_at = '2025-05-01T00:00:00Z'`);
  await member('joined_backdated', `left_at = '2025-04-01T00:00:00Z'`);
  await member('joined_backdated', `left_at = NULL, joined_at = '2025-05-01T00:00:00Z'`);
  return {
    resumed_reset: await last('resumed_reset', `suspended_at = NULL, resumed_at = NULL`),
    resumed_backdated: await last('resumed_backdated', `suspended_at = NULL, resumed_at = '2025-01-01T00:00:00Z'`),
    rejoined_backdated: await last('rejoined_backdated', `left_at = NULL, joined_at = '2024-11-01T00:00:00Z'`),
    resumed_erased: await last('resumed_erased', `resumed_at = NULL`),
    joined_backdated: await last('joined_backdated', `joined_at = '2024-12-01T00:00:00Z'`),
    untouched: await last('untouched', `role = 'owner'`),
  };
}
