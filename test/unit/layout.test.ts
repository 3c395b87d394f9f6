import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { build, transform } from 'esbuild';

/**
 * The layout rules of docs/contributing.md, held by the code itself rather than by review:
 * shared/ holds only what a deployed function or the CDK app bundles; rooms depend downward only; the
 * environment is read in shared/config only, and the service logs through one logger.
 */

const ROOT = join(import.meta.dirname, '..', '..');

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

const sharedFiles = filesUnder('shared');
/** The store's SQL: numbered migrations, one file of read functions per family, the grants. */
const SQL_FILE = /^shared\/admin\/sql\/(migrations\/\d{3}_[a-z0-9_]+|functions\/[a-z0-9-]+|grants)\.sql$/;
const sharedCode = sharedFiles.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
const entries = [...filesUnder('functions').filter((file) => file.endsWith('/handler.ts')), 'bin/app.ts'];

/** Every file of this repository that esbuild reaches from an entry (packages left out). */
async function repoFilesReachedFrom(entry: string): Promise<string[]> {
  const out = await build({
    entryPoints: [join(ROOT, entry)],
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    metafile: true,
    packages: 'external',
    logLevel: 'error',
  });
  return Object.keys(out.metafile.inputs);
}

/** The files of shared/ that esbuild reaches from an entry, bundled as CDK bundles the functions. */
async function reachedFrom(entry: string): Promise<string[]> {
  return (await repoFilesReachedFrom(entry)).filter((input) => input.startsWith('shared/'));
}

/** Whether a TypeScript file holds anything that runs: a file of types alone compiles to nothing. */
async function hasRuntimeCode(file: string): Promise<boolean> {
  const { code } = await transform(readFileSync(join(ROOT, file), 'utf8'), { loader: 'ts', format: 'esm' });
  return code.replace(/^export \{\};?$/m, '').trim() !== '';
}

describe('shared/ holds only what a deployed function or the CDK app runs', () => {
  test('every file with runtime code under shared/ is reached by a function bundle or the CDK app', async () => {
    const reached = new Set((await Promise.all(entries.map(reachedFrom))).flat());
    expect(reached.size).toBeGreaterThan(40);
    const unreached: string[] = [];
    for (const file of sharedCode) if (!reached.has(file) && (await hasRuntimeCode(file))) unreached.push(file);
    expect(unreached).toEqual([]);
  });

  test("the only files under shared/ that are not TypeScript are the store's SQL, which the migrate function ships beside its bundle", () => {
    const other = sharedFiles.filter((file) => !file.endsWith('.ts'));
    expect(other.length).toBeGreaterThan(0);
    // lib/constructs/migration-runner.ts copies this directory next to the migrate bundle.
    const migrationRunner = readFileSync(join(ROOT, 'lib/constructs/migration-runner.ts'), 'utf8');
    expect(migrationRunner).toContain('shared/admin/sql');
    expect(other.filter((file) => !SQL_FILE.test(file))).toEqual([]);
  });

  test('a file that no bundle reaches is caught (the check above can fail)', async () => {
    const reached = new Set(await reachedFrom('functions/openapi/handler.ts'));
    expect(reached.has('shared/reads/registry.ts')).toBe(false);
    expect(await hasRuntimeCode('shared/reads/registry.ts')).toBe(true);
    expect(await hasRuntimeCode('shared/store/queryable.ts')).toBe(false);
  });
});

describe('the local stack is product code: npm start runs nothing from test/', () => {
  test('bin/start.ts reaches local/ and shared/, never test/', async () => {
    const reached = await repoFilesReachedFrom('bin/start.ts');
    expect(reached.filter((file) => file.startsWith('local/')).length).toBeGreaterThan(2);
    expect(reached.filter((file) => file.startsWith('test/'))).toEqual([]);
  });

  test('no file of local/ imports from test/', async () => {
    const offenders: string[] = [];
    for (const file of filesUnder('local').filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))) {
      if ((await repoFilesReachedFrom(file)).some((input) => input.startsWith('test/'))) offenders.push(file);
    }
    expect(offenders).toEqual([]);
  });
});

/**
 * The rooms of shared/, from the top: the faces (REST, MCP, operator commands), the chain every face's
 * function opens with, the middleware steps it is made of, the reads, the stores, and the base every room
 * may use. A room imports its own rank or below.
 */
const RANKS: ReadonlyArray<readonly [RegExp, number, string]> = [
  [/^shared\/(rest|mcp|admin)\//, 6, 'faces'],
  [/^shared\/chain\//, 5, 'chain'],
  [/^shared\/middleware\//, 4, 'middleware'],
  [/^shared\/reads\//, 3, 'reads'],
  [/^shared\/store\//, 2, 'store'],
  [/^shared\/(config\/|log\.ts$|errors\.ts$|keys\.ts$|formats\.ts$|builtins\.ts$)/, 1, 'base'],
];

function rankOf(file: string): { rank: number; room: string } {
  const found = RANKS.find(([pattern]) => pattern.test(file));
  if (!found) throw new Error(`${file} belongs to no room of shared/: add it to a room or to RANKS`);
  return { rank: found[1], room: found[2] };
}

/**
 * Every module of the repository a file imports, type-only imports and re-exports included, as repository
 * paths: relative specifiers, and `#shared/...` (package.json `imports`, how code outside shared/ names it).
 */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'((?:\.{1,2}\/|#shared\/)[^']+)'/g)].map(
    (m) => m[1] as string,
  );
  return specifiers.map((spec) =>
    (spec.startsWith('#shared/') ? `shared/${spec.slice('#shared/'.length)}` : normalize(join(dirname(file), spec))).replace(
      /\.js$/,
      '.ts',
    ),
  );
}

describe('rooms depend downward only: entries -> faces -> chain -> middleware -> reads -> store -> base', () => {
  test('every file under shared/ belongs to a room', () => {
    for (const file of sharedCode) expect(() => rankOf(file)).not.toThrow();
  });

  test('no file under shared/ imports a room above its own, or anything outside shared/ but JSON data', () => {
    const upward: string[] = [];
    for (const file of sharedCode) {
      const own = rankOf(file);
      for (const target of importsOf(file)) {
        if (!target.startsWith('shared/')) {
          upward.push(`${file} -> ${target} (outside shared/)`);
          continue;
        }
        const other = rankOf(target);
        if (other.rank > own.rank) upward.push(`${file} (${own.room}) -> ${target} (${other.room})`);
      }
    }
    expect(upward).toEqual([]);
  });

  test('the import scan sees type-only imports and the #shared/ alias too (the checks around can fail)', () => {
    expect(importsOf('shared/reads/types.ts')).toContain('shared/store/caller.ts');
    expect(importsOf('functions/identity/handler.ts')).toContain('shared/rest/handler.ts');
    expect(rankOf('shared/store/caller.ts').rank).toBeLessThan(rankOf('shared/reads/types.ts').rank);
  });

  test('entry files only wire: they import shared/ and the committed openapi.json, and export a handler', () => {
    for (const entry of entries.filter((file) => file.startsWith('functions/'))) {
      const text = readFileSync(join(ROOT, entry), 'utf8');
      for (const target of importsOf(entry)) expect(target.startsWith('shared/') || target === 'openapi/openapi.json').toBe(true);
      expect(text).toMatch(/^export const handler = /m);
      expect(text.split('\n').filter((line) => /^\s*(function|class|async function|if|for|while)\b/.test(line))).toEqual([]);
    }
  });
});

describe('configuration read in one place, one logger', () => {
  const served = [...sharedCode, ...entries.filter((file) => file.startsWith('functions/'))];

  test('the environment is read under shared/config/ only', () => {
    const readers = served.filter(
      (file) => !file.startsWith('shared/config/') && /process\.env/.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(readers).toEqual([]);
  });

  test('nothing the functions run writes to the console: every line goes through the one logger (shared/log.ts)', () => {
    const writers = served.filter((file) => /\bconsole\.(log|info|warn|error|debug)\(/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(writers).toEqual([]);
    const loggers = served.filter((file) => /new Logger\(/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(loggers).toEqual(['shared/log.ts']);
  });
});

/**
 * Where each SQL function of the store is defined, and how: the functions of shared/admin/sql/functions
 * are the read functions, written CREATE OR REPLACE and applied whole by every migrate run; the
 * migrations hold the schema and the write path (triggers, the extraction the pipeline calls, and what a
 * migration's own backfill calls), which a later migration may redefine.
 */
interface SqlFunction {
  name: string;
  file: string;
  orReplace: boolean;
  /** Declared STABLE or IMMUTABLE: it reads and never writes. */
  pure: boolean;
}

/** The functions a SQL text defines (comments left out), with what their headers declare. */
function functionsIn(file: string, sql: string): SqlFunction[] {
  const code = sql.replace(/--[^\n]*/g, '');
  return [...code.matchAll(/CREATE\s+(OR\s+REPLACE\s+)?FUNCTION\s+(\w+)\s*\(/gi)].map((m) => {
    const header = code.slice(m.index, code.indexOf('$$', m.index));
    return { name: m[2] as string, file, orReplace: m[1] !== undefined, pure: /\b(STABLE|IMMUTABLE)\b/i.test(header) };
  });
}

/** The statements of a functions file other than a function's definition (its comments left out). */
function otherStatements(sql: string): string[] {
  const code = sql.replace(/--[^\n]*/g, '').replace(/\$\$[\s\S]*?\$\$/g, '$$$$');
  return code
    .split(';')
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '' && !/^CREATE\s+OR\s+REPLACE\s+FUNCTION\b/i.test(statement));
}

/** Every breach of the rules below, for a set of SQL files (path -> text). */
function sqlRuleBreaches(files: Record<string, string>): string[] {
  const isFunctionsFile = (file: string) => file.includes('/functions/');
  const all = Object.entries(files).flatMap(([file, sql]) => functionsIn(file, sql));
  const byName = new Map<string, SqlFunction[]>();
  for (const f of all) byName.set(f.name, [...(byName.get(f.name) ?? []), f]);
  const breaches: string[] = [];
  for (const [name, defs] of byName) {
    const places = defs.map((d) => d.file);
    if (defs.some((d) => isFunctionsFile(d.file)) && defs.length > 1)
      breaches.push(`${name}: a read function defined in ${places.join(', ')}`);
    else if (defs.some((d) => d.pure) && defs.length > 1) breaches.push(`${name}: a pure read function defined in ${places.join(', ')}`);
    if (name.startsWith('api_') && !defs.every((d) => isFunctionsFile(d.file)))
      breaches.push(`${name}: a read's function outside functions/`);
    for (const d of defs) if (isFunctionsFile(d.file) && !d.orReplace) breaches.push(`${name}: not CREATE OR REPLACE in ${d.file}`);
  }
  for (const [file, sql] of Object.entries(files))
    if (isFunctionsFile(file))
      for (const statement of otherStatements(sql)) breaches.push(`${file}: not a function: ${statement.split('\n')[0]}`);
  return breaches;
}

describe("the store's SQL: one home per read function", () => {
  const sql = Object.fromEntries(
    sharedFiles.filter((file) => file.endsWith('.sql')).map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]),
  );

  test('every read function is defined once, in the functions file of its family, as CREATE OR REPLACE, and those files hold nothing else', () => {
    expect(Object.keys(sql).filter((file) => file.includes('/functions/')).length).toBeGreaterThan(1);
    expect(functionsIn('x', Object.values(sql).join('\n')).length).toBeGreaterThan(30);
    expect(sqlRuleBreaches(sql)).toEqual([]);
  });

  test('a read function defined a second time, in a migration or another functions file, fails the rule (the check above can fail)', () => {
    const [functionsFile, text] = Object.entries(sql).find(([file]) => file.endsWith('/functions/figures.sql')) as [string, string];
    const fig = text.slice(text.indexOf('CREATE OR REPLACE FUNCTION api_fig_headline'));
    const copy = fig.slice(0, fig.indexOf('$$;') + 3);
    expect(sqlRuleBreaches({ ...sql, 'shared/admin/sql/migrations/999_again.sql': copy })).toEqual([
      `api_fig_headline: a read function defined in ${functionsFile}, shared/admin/sql/migrations/999_again.sql`,
      "api_fig_headline: a read's function outside functions/",
    ]);
    expect(sqlRuleBreaches({ ...sql, 'shared/admin/sql/functions/other.sql': copy })).toEqual([
      `api_fig_headline: a read function defined in ${functionsFile}, shared/admin/sql/functions/other.sql`,
    ]);
    const pure = 'CREATE FUNCTION fig_twice(d date) RETURNS date LANGUAGE sql IMMUTABLE AS $$ SELECT d $$;';
    expect(sqlRuleBreaches({ 'm/001_a.sql': pure, 'm/002_b.sql': pure.replace('CREATE', 'CREATE OR REPLACE') })).toEqual([
      'fig_twice: a pure read function defined in m/001_a.sql, m/002_b.sql',
    ]);
    expect(sqlRuleBreaches({ 'f/functions/x.sql': `${pure}\nCREATE TABLE t (a int);` })).toEqual([
      'fig_twice: not CREATE OR REPLACE in f/functions/x.sql',
      'f/functions/x.sql: not a function: CREATE FUNCTION fig_twice(d date) RETURNS date LANGUAGE sql IMMUTABLE AS $$',
      'f/functions/x.sql: not a function: CREATE TABLE t (a int)',
    ]);
  });
});
