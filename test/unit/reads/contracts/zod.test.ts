import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { build, type Metafile, type Plugin } from 'esbuild';
import * as zod from 'zod';
import { type Converted, convert } from '#shared/reads/contracts/json-schema.js';
import * as lazy from '#shared/reads/contracts/zod.js';
import { reads } from '#shared/reads/registry.js';
import type { ReadDef } from '#shared/reads/types.js';

/**
 * The lazy contracts (shared/reads/contracts/zod.ts) stand in for zod's builders and build each schema on
 * first use. They hold only while they build what zod itself would: a zod release that changes what a
 * builder or a step does to its arguments, or adds one the stand-ins pass on wrongly, would change a
 * contract without any read file changing. So the read table is built a second time, eagerly, with plain
 * zod in place of contracts/zod.ts, and every read's input and output must convert to the same JSON
 * Schema both ways.
 */

const ROOT = resolve(import.meta.dirname, '../../../..');
const LAZY_CONTRACTS = join(ROOT, 'shared/reads/contracts/zod.ts');

/**
 * What contracts/zod.ts exports beyond zod's own names, as plain zod would do it: a schema is already
 * itself, and no schema holds a stand-in.
 */
const EAGER_EXTRAS: Record<string, string> = {
  settle: '(value) => value',
  assertNoStandIns: '() => {}',
};
const EAGER_ZOD = ["export * from 'zod';", ...Object.entries(EAGER_EXTRAS).map(([name, body]) => `export const ${name} = ${body};`)].join(
  '\n',
);

/** Every import of contracts/zod.ts, whatever the importer calls it, answered with plain zod. */
const eagerZod: Plugin = {
  name: 'eager-zod',
  setup(b) {
    b.onResolve({ filter: /(^|\/)zod\.js$/ }, (args) =>
      resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts') === LAZY_CONTRACTS ? { path: 'zod', namespace: 'eager-zod' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'eager-zod' }, () => ({ contents: EAGER_ZOD, loader: 'js', resolveDir: ROOT }));
  },
};

interface EagerTable {
  reads: readonly ReadDef[];
  convert: typeof convert;
}

let eager: EagerTable;
let inputs: Metafile['inputs'];
let dir: string;

beforeAll(async () => {
  // Under the repository's node_modules, so that the packages the bundle leaves out (zod, the AWS SDK)
  // resolve to the very modules this test loads: one zod, one registry of ids and descriptions.
  const cache = join(ROOT, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  dir = await mkdtemp(join(cache, 'eager-contracts-'));
  const outfile = join(dir, 'eager.mjs');
  const out = await build({
    stdin: {
      contents: [
        "export { reads } from './shared/reads/registry.ts';",
        "export { convert } from './shared/reads/contracts/json-schema.ts';",
      ].join('\n'),
      resolveDir: ROOT,
      loader: 'ts',
      sourcefile: 'eager-entry.ts',
    },
    absWorkingDir: ROOT,
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    metafile: true,
    plugins: [eagerZod],
    logLevel: 'error',
  });
  inputs = out.metafile.inputs;
  eager = (await import(pathToFileURL(outfile).href)) as EagerTable;
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A contract as JSON Schema: the project's conversion (OpenAPI and MCP build on it) and zod's own. */
function jsonSchemas(
  convertWith: typeof convert,
  contract: zod.ZodType,
  io: 'input' | 'output',
): { converted: Converted; zod: Record<string, unknown> } {
  return {
    converted: convertWith(contract, io, '#/$defs/'),
    zod: zod.toJSONSchema(lazy.settle(contract), { io }) as Record<string, unknown>,
  };
}

describe('the eager table is what the comparison needs', () => {
  test('the eager bundle holds the read files but not contracts/zod.ts: each of its imports got plain zod', () => {
    const files = Object.keys(inputs);
    expect(files).not.toContain('shared/reads/contracts/zod.ts');
    expect(files).toContain('eager-zod:zod');
    expect(files).toEqual(expect.arrayContaining(['shared/reads/registry.ts', 'shared/reads/contracts/json-schema.ts']));
    // The files that import contracts/zod.ts, each of which now imports plain zod in its place.
    const importers = files.filter((file) => inputs[file]?.imports.some((i) => i.path === 'eager-zod:zod'));
    expect(importers).toEqual(expect.arrayContaining(['shared/reads/contracts/json-schema.ts', 'shared/reads/figures/metrics.ts']));
  });

  test('plain zod stands in for everything contracts/zod.ts exports beyond zod', () => {
    const extras = Object.keys(lazy).filter((name) => !(name in zod));
    expect(extras.sort()).toEqual(Object.keys(EAGER_EXTRAS).sort());
  });

  test('the same reads in the same order; stand-ins on the lazy side, schemas zod built on the eager side', () => {
    expect(eager.reads.map((r) => r.name)).toEqual(reads.map((r) => r.name));
    expect(eager.reads.length).toBe(reads.length);
    for (const [i, read] of reads.entries()) {
      const other = eager.reads[i] as ReadDef;
      // settle gives the built schema for a stand-in, the value itself for anything else.
      expect({ read: read.name, lazyInput: lazy.settle(read.input) !== read.input }).toEqual({ read: read.name, lazyInput: true });
      expect({ read: read.name, lazyOutput: lazy.settle(read.output) !== read.output }).toEqual({ read: read.name, lazyOutput: true });
      expect({ read: read.name, eager: [lazy.settle(other.input) === other.input, lazy.settle(other.output) === other.output] }).toEqual({
        read: read.name,
        eager: [true, true],
      });
      expect(other.input).toBeInstanceOf(zod.ZodObject);
    }
  });

  test('the comparison can fail: a contract changed on one side, or another read, converts differently', () => {
    const [first, second] = reads as [ReadDef, ReadDef];
    const [eagerFirst, eagerSecond] = eager.reads as [ReadDef, ReadDef];
    const changed = first.output.describe('a description the eager contract does not have');
    expect(jsonSchemas(convert, changed, 'output')).not.toEqual(jsonSchemas(eager.convert, eagerFirst.output, 'output'));
    expect(jsonSchemas(convert, first.output, 'output')).not.toEqual(jsonSchemas(eager.convert, eagerSecond.output, 'output'));
    expect(jsonSchemas(convert, second.input, 'input')).not.toEqual(jsonSchemas(eager.convert, eagerFirst.input, 'input'));
  });
});

describe('every read converts to the same JSON Schema built lazily and built eagerly with zod', () => {
  test.each(reads.map((read, i) => [read.name, i] as const))('%s: input and output', (name, i) => {
    const read = reads[i] as ReadDef;
    const other = eager.reads[i] as ReadDef;
    expect(other.name).toBe(name);
    expect({ read: name, input: jsonSchemas(convert, read.input, 'input') }).toEqual({
      read: name,
      input: jsonSchemas(eager.convert, other.input, 'input'),
    });
    expect({ read: name, output: jsonSchemas(convert, read.output, 'output') }).toEqual({
      read: name,
      output: jsonSchemas(eager.convert, other.output, 'output'),
    });
  });
});
