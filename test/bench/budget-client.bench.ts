import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { freshTableName } from '../../local/stack.js';
import { createBudgetTable, startBudgetStore } from '../../local/stores.js';
import { stats, table } from './harness.js';

/**
 * CPU per warm call of the budget table's client: the AWS SDK's document client as the
 * functions build it (shared/store/budget.ts, createDynamoClient) beside the hand-written DynamoDB
 * client and SigV4 signer it replaced (shared/aws at commit PREVIOUS, read from git history: it is no
 * longer part of the product). Each is bundled as CDK bundles the functions (ESM, minified) and run in a
 * process of its own that sends the budget's UpdateItem (the same condition and increment, one item)
 * to dynalite, which runs in this process: the child's CPU is the client's alone. Rounds alternate the
 * two clients, each a fresh process warmed up first; medians over rounds.
 */
const run = promisify(execFile);
const PREVIOUS = 'ccfa032ced9cb8443421d8f12cc266e6232918c3';
const OUT = resolve('.local/bench/budget-client');
const ROUNDS = Number(process.env.BENCH_CLIENT_ROUNDS ?? 7);
const CALLS = Number(process.env.BENCH_CLIENT_CALLS ?? 2000);
const WARMUP = 300;

const UPDATE = {
  UpdateExpression: 'ADD #calls :one SET #expires = if_not_exists(#expires, :expires)',
  ConditionExpression: 'attribute_not_exists(#calls) OR #calls < :limit',
  ExpressionAttributeNames: { '#calls': 'calls', '#expires': 'expires_at' },
  ReturnValues: 'UPDATED_NEW',
};

/** The same UpdateItem for both: plain values for the document client, DynamoDB's typed values for the wire. */
const ENTRIES: Record<string, string> = {
  'AWS SDK document client (now)': `
import { createDynamoClient } from '#shared/store/budget.js';
const client = createDynamoClient({
  DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT, AWS_REGION: 'us-east-1', BUDGET_TIMEOUT_MS: 1000,
});
const input = { TableName: process.env.BUDGET_TABLE, Key: { pk: 'bench#sdk' }, ...${JSON.stringify(UPDATE)},
  ExpressionAttributeValues: { ':one': 1, ':limit': 1e12, ':expires': 4e9 } };
export const call = () => client.update(input);
`,
  [`hand-written client (${PREVIOUS.slice(0, 7)})`]: `
import { createDynamoDb } from './shared/aws/dynamodb.js';
const client = createDynamoDb({
  endpoint: process.env.DYNAMODB_ENDPOINT, region: 'us-east-1', timeoutMs: 1000,
  credentials: () => ({ accessKeyId: 'local', secretAccessKey: 'local' }),
});
const input = { TableName: process.env.BUDGET_TABLE, Key: { pk: { S: 'bench#previous' } }, ...${JSON.stringify(UPDATE)},
  ExpressionAttributeValues: { ':one': { N: '1' }, ':limit': { N: '1000000000000' }, ':expires': { N: '4000000000' } } };
export const call = () => client.send('UpdateItem', input);
`,
};

const RUNNER = `
const { call } = await import(process.argv[2]);
const calls = Number(process.argv[3]);
for (let i = 0; i < ${WARMUP}; i += 1) await call();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < calls; i += 1) await call();
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
console.log(JSON.stringify({ cpuUs: (cpu.user + cpu.system) / calls, wallMs: wall / calls }));
process.exit(0);
`;

/** The previous client's sources as they were at PREVIOUS, under OUT (outside the product's tree). */
async function previousSources(): Promise<void> {
  for (const file of ['shared/aws/dynamodb.ts', 'shared/aws/sigv4.ts', 'shared/builtins.ts']) {
    const { stdout } = await run('git', ['show', `${PREVIOUS}:${file}`], { maxBuffer: 1 << 20 });
    await mkdir(join(OUT, file, '..'), { recursive: true });
    await writeFile(join(OUT, file), stdout);
  }
}

export default async function budgetClient(): Promise<string> {
  await mkdir(OUT, { recursive: true });
  await previousSources();
  await writeFile(join(OUT, 'runner.mjs'), RUNNER);
  const names = Object.keys(ENTRIES);
  for (const [i, name] of names.entries()) {
    await writeFile(join(OUT, `entry-${i}.ts`), ENTRIES[name] ?? '');
    await build({
      entryPoints: [join(OUT, `entry-${i}.ts`)],
      outfile: join(OUT, `client-${i}.mjs`),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      minify: true,
      mainFields: ['module', 'main'],
      banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
      logLevel: 'error',
    });
  }
  const budget = await startBudgetStore();
  const tableName = freshTableName();
  await createBudgetTable(budget.endpoint, tableName);
  const samples: Record<string, Array<{ cpuUs: number; wallMs: number }>> = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [i, name] of names.entries()) {
      const child = await run(process.execPath, [join(OUT, 'runner.mjs'), `./client-${i}.mjs`, String(CALLS)], {
        env: {
          ...process.env,
          DYNAMODB_ENDPOINT: budget.endpoint,
          BUDGET_TABLE: tableName,
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
        encoding: 'utf8',
      });
      samples[name]?.push(JSON.parse(child.stdout.trim().split('\n').pop() ?? '') as { cpuUs: number; wallMs: number });
    }
  }
  await budget.close();
  const rows = names.map((name) => {
    const s = samples[name] ?? [];
    return {
      client: name,
      'client CPU µs per call (median of rounds)': Math.round(stats(s.map((x) => x.cpuUs)).p50),
      'range over rounds': `${Math.round(Math.min(...s.map((x) => x.cpuUs)))}-${Math.round(Math.max(...s.map((x) => x.cpuUs)))}`,
      'wall ms per call (against dynalite)': stats(s.map((x) => x.wallMs)).p50,
    };
  });
  return `${table(rows)}\n\n${ROUNDS} alternating rounds of ${CALLS} sequential UpdateItem calls after ${WARMUP} of warm-up, each client bundled (ESM, minified) in a fresh \`node ${process.version}\` process; the budget store (dynalite) in the bench's process, so the client process's CPU (process.cpuUsage, user + system) is the client's own.`;
}
