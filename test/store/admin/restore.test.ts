import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { type DemoManifest, seedDemo } from '#shared/admin/demo.js';
import { migrate } from '#shared/admin/migrate.js';
import { verifyAggregates } from '#shared/admin/verify-aggregates.js';
import { fingerprint } from '#shared/keys.js';
import { getMetrics } from '#shared/reads/figures/metrics.js';
import { me as getMe } from '#shared/reads/identity/me.js';
import type { ReadDef } from '#shared/reads/types.js';
import { asDb, readAsFace } from '../../support/face-read.js';
import { scratchDatabase, serverAnswers, TEST_SERVER_URL, withClient } from '../../support/server-db.js';

/**
 * The data copy of the runbook's restore (docs/runbook-rollback.md, "Restoring the store from a
 * snapshot", step 4), run as the runbook writes it, with its two connection strings pointed at two
 * databases of the PostgreSQL server: one holding what the snapshot holds (the demo), the other the
 * stage after a bad change (mentions deleted after their runs were finished, so the stored figures no
 * longer follow the rows; a key deleted). After the copy and the functions applied again (step 5), every
 * table of the stage holds what the snapshot holds, no aggregate drifts, and the deleted key reads again,
 * as the service's reader role. The same commands without the line that turns the triggers off fail, and
 * the single transaction leaves the stage as it was. The restore itself (a new cluster from a snapshot)
 * is Aurora's and cannot run here.
 *
 * pg_dump, pg_restore and psql come from the Debian package postgresql-client; without them, or without a
 * PostgreSQL server, the tests are skipped with a message saying so. It imports nothing of the local stack,
 * so CI's pass against the server does not run it again: it reaches the server in every pass.
 */
const RUNBOOK = fileURLToPath(new URL('../../../docs/runbook-rollback.md', import.meta.url));

/** The shell block of step 4: the one that dumps the restored store and loads it into the stage. */
function copyCommands(): string {
  const blocks = [...readFileSync(RUNBOOK, 'utf8').matchAll(/^( *)```sh\n([\s\S]*?)^\1```/gm)].map((m) =>
    (m[2] as string).replace(new RegExp(`^${m[1]}`, 'gm'), ''),
  );
  const copy = blocks.filter((b) => b.includes('pg_dump') && b.includes('pg_restore'));
  expect(copy).toHaveLength(1);
  return copy[0] as string;
}

/** The runbook's commands with its two stores replaced by ours (each assignment must be there to replace). */
function pointedAt(commands: string, restored: string, stage: string): string {
  let out = commands;
  for (const [name, url] of [
    ['RESTORED', restored],
    ['STAGE', stage],
  ] as const) {
    const line = new RegExp(`^${name}=.*$`, 'm');
    expect(out).toMatch(line);
    out = out.replace(line, `${name}='${url}'`);
  }
  return out;
}

function run(commands: string, cwd: string): { status: number | null; stderr: string } {
  const r = spawnSync('bash', ['-euo', 'pipefail', '-c', commands], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, stderr: r.stderr };
}

const TABLES = `SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY 1`;

/** Each table's rows as a count and a digest of the rows in a fixed order. */
async function contents(url: string): Promise<Record<string, string>> {
  return withClient(url, async (c) => {
    const out: Record<string, string> = {};
    for (const { tablename } of (await c.query<{ tablename: string }>(TABLES)).rows) {
      const q = `SELECT count(*) || ' ' || coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '-') AS v FROM ${pg.escapeIdentifier(tablename)} t`;
      out[tablename] = (await c.query<{ v: string }>(q)).rows[0]?.v as string;
    }
    return out;
  });
}

/** A read as a face runs it (readAsFace), on a connection of the service's reader role: the served body, or the refusal's code. */
async function readAs(url: string, secret: string, read: ReadDef, args: Record<string, unknown>): Promise<unknown> {
  return withClient(Object.assign(new URL(url), { username: 'geo_reader' }).toString(), async (c) => {
    const got = await readAsFace(asDb(c), read, secret, args);
    return got.status === 'served' ? got.body : got.code;
  });
}

function missingTools(): string[] {
  return ['pg_dump', 'pg_restore', 'psql'].filter((tool) => {
    try {
      execFileSync(tool, ['--version'], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
}

describe('the runbook’s data copy from a restored store into a stage (PostgreSQL server)', () => {
  let drops: Array<() => Promise<void>> = [];
  let urls: { restored: string; stage: string } | undefined;
  let manifest: DemoManifest;
  let dir: string;
  let snapshot: Record<string, string>;
  let keyId: string;

  beforeAll(async () => {
    const missing = missingTools();
    if (missing.length > 0) {
      console.warn(`restore: ${missing.join(', ')} not found (Debian: apt-get install postgresql-client); the copy is not rehearsed`);
      return;
    }
    if (!(await serverAnswers(TEST_SERVER_URL))) {
      console.warn(`restore: no PostgreSQL server at ${new URL(TEST_SERVER_URL).host}; the copy is not rehearsed`);
      return;
    }
    // The stage starts as a copy of the snapshot's database (the same store before the bad change).
    const restored = await scratchDatabase(TEST_SERVER_URL, 'geo_restored');
    drops = [restored.drop];
    manifest = await withClient(restored.url, async (c) => {
      await migrate(c);
      return seedDemo(c);
    });
    const stage = await scratchDatabase(TEST_SERVER_URL, 'geo_stage', restored.name);
    drops.push(stage.drop);
    urls = { restored: restored.url, stage: stage.url };
    snapshot = await contents(urls.restored);
    // The bad change on the stage: mentions of finished runs deleted (the figures kept at finishing no
    // longer follow the rows), and a key deleted.
    keyId = await withClient(urls.stage, async (c) => {
      await c.query('DELETE FROM mentions WHERE answer_id IN (SELECT id FROM answers ORDER BY id LIMIT 50)');
      const key = await c.query<{ id: string }>('DELETE FROM api_keys WHERE fingerprint = $1 RETURNING id', [
        fingerprint(manifest.keys.workspace),
      ]);
      return key.rows[0]?.id as string;
    });
    dir = mkdtempSync(join(tmpdir(), 'geo-restore-'));
  }, 120_000);

  afterAll(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    for (const drop of drops) await drop();
  });

  test('the stage differs from the snapshot before the copy: stale figures, a key gone', async () => {
    if (!urls) return;
    expect(keyId).toEqual(expect.any(String));
    const stage = await contents(urls.stage);
    expect(Object.keys(stage)).toEqual(Object.keys(snapshot));
    expect(stage.mentions).not.toBe(snapshot.mentions);
    expect(stage.api_keys).not.toBe(snapshot.api_keys);
    const drift = await withClient(urls.stage, (c) => verifyAggregates(c, { repair: false }));
    expect(drift.drift.length).toBeGreaterThan(0);
    expect(await readAs(urls.stage, manifest.keys.workspace, getMe, {})).toBe('unauthorized');
  });

  test('without turning the triggers off the load fails, and the stage is left as it was', async () => {
    if (!urls) return;
    const before = await contents(urls.stage);
    const commands = pointedAt(copyCommands(), urls.restored, urls.stage);
    const triggersOff = 'echo "SET session_replication_role = replica;"';
    expect(commands).toContain(triggersOff);
    const r = run(commands.replace(triggersOff, ':'), dir);
    // The triggers count the loaded rows again into the tables loaded with them: a key they already hold.
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/duplicate key value violates unique constraint/);
    expect(await contents(urls.stage)).toEqual(before);
  }, 60_000);

  test('as written, the stage then holds every row of the snapshot, no figure drifts, and the key reads again', async () => {
    if (!urls) return;
    const r = run(pointedAt(copyCommands(), urls.restored, urls.stage), dir);
    expect(r.stderr).not.toMatch(/ERROR/);
    expect(r.status).toBe(0);
    // Step 5: the read functions and grants applied again, as the migration function does.
    await withClient(urls.stage, (c) => migrate(c));
    expect(await contents(urls.stage)).toEqual(snapshot);
    const drift = await withClient(urls.stage, (c) => verifyAggregates(c, { repair: false }));
    expect(drift.drift).toEqual([]);
    expect(drift.checked.length).toBeGreaterThan(10);
    const analysis = manifest.analyses.collected;
    for (const [read, args] of [
      [getMe, {}],
      [getMetrics, { analysis, window: '30d' }],
    ] as const) {
      const served = await readAs(urls.stage, manifest.keys.workspace, read, args);
      expect(served).toEqual(await readAs(urls.restored, manifest.keys.workspace, read, args));
      expect(served).not.toBe('unauthorized');
    }
  }, 60_000);
});
