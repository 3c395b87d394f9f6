import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { SDK_NODE_WARNING_OFF } from '../../local/node-notice.js';
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

/** The budget step's UpdateItem (shared/store/budget.ts), its call token numbered per call by each candidate. */
const UPDATE = {
  UpdateExpression: 'ADD #calls :one SET #expires = if_not_exists(#expires, :expires), #call = :call',
  ConditionExpression: '(attribute_not_exists(#calls) OR #calls < :limit) AND (attribute_not_exists(#call) OR #call <> :call)',
  ExpressionAttributeNames: { '#calls': 'calls', '#expires': 'expires_at', '#call': 'call_bench_0' },
  ReturnValues: 'UPDATED_NEW',
};

const TYPED_VALUES = "{ ':one': { N: '1' }, ':limit': { N: '1000000000000' }, ':expires': { N: '4000000000' }, ':call': { N: '0' } }";
/** Each call's own token number, as the budget step gives it. */
const NEXT_TYPED =
  "let sequence = 0; const next = () => { input.ExpressionAttributeValues[':call'] = { N: String(++sequence) }; return input; };";

/** The SDK's retry step replaced by a pass-through of the same name (the signing step is placed after it). */
const NO_RETRY = `client.middlewareStack.add((next) => next, { name: 'retryMiddleware', tags: ['RETRY'], step: 'finalizeRequest', priority: 'high', override: true });`;

/** An SDK DynamoDBClient as the candidates build it: one attempt, keep-alive, dummy credentials. */
const sdkClient = (extra: string) => `
import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { Agent } from 'node:http';
const client = new DynamoDBClient({
  endpoint: process.env.DYNAMODB_ENDPOINT, region: 'us-east-1', maxAttempts: 1,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  requestHandler: new NodeHttpHandler({ httpAgent: new Agent({ keepAlive: true, maxSockets: 50 }) }),
  ${extra}
});
`;

/**
 * The same UpdateItem for every candidate: plain values for the document client, DynamoDB's typed values
 * for the rest. The candidates go from the SDK as the design names it, built the plain way, to the
 * leanest SDK configuration we could build (the SDK still signing and sending), then the product's
 * client, then the hand-written client and signer (the floor without the SDK).
 */
const ENTRIES: Record<string, string> = {
  'SDK document client, abort signal per call (the client until 2026-11-28)': `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { Agent } from 'node:http';
const client = new DynamoDBClient({
  endpoint: process.env.DYNAMODB_ENDPOINT, region: 'us-east-1', maxAttempts: 1,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  requestHandler: new NodeHttpHandler({ httpAgent: new Agent({ keepAlive: true, maxSockets: 50 }) }),
});
const document = DynamoDBDocumentClient.from(client);
const input = { TableName: process.env.BUDGET_TABLE, Key: { pk: 'bench#doc' }, ...${JSON.stringify(UPDATE)},
  ExpressionAttributeValues: { ':one': 1, ':limit': 1e12, ':expires': 4e9, ':call': 0 } };
let sequence = 0;
export const call = () => {
  input.ExpressionAttributeValues[':call'] = ++sequence;
  return document.send(new UpdateCommand(input), { abortSignal: new AbortController().signal });
};
`,
  'SDK DynamoDBClient, typed values, abort signal per call': `${sdkClient('')}
const input = { TableName: process.env.BUDGET_TABLE, Key: { pk: { S: 'bench#plain' } }, ...${JSON.stringify(UPDATE)},
  ExpressionAttributeValues: ${TYPED_VALUES} };
${NEXT_TYPED}
export const call = () => client.send(new UpdateItemCommand(next()), { abortSignal: new AbortController().signal });
`,
  'SDK DynamoDBClient, stack resolved once (cacheMiddleware, no per-call options)': `${sdkClient('cacheMiddleware: true,')}
const input = { TableName: process.env.BUDGET_TABLE, Key: { pk: { S: 'bench#cache' } }, ...${JSON.stringify(UPDATE)},
  ExpressionAttributeValues: ${TYPED_VALUES} };
${NEXT_TYPED}
export const call = () => client.send(new UpdateItemCommand(next()));
`,
  'the same, no retry step': `${sdkClient('cacheMiddleware: true,')}
${NO_RETRY}
const input = { TableName: process.env.BUDGET_TABLE, Key: { pk: { S: 'bench#noretry' } }, ...${JSON.stringify(UPDATE)},
  ExpressionAttributeValues: ${TYPED_VALUES} };
${NEXT_TYPED}
export const call = () => client.send(new UpdateItemCommand(next()));
`,
  'leanest: the same, and no user-agent, recursion-detection or logger middleware': `${sdkClient('cacheMiddleware: true,')}
${NO_RETRY}
for (const name of ['getUserAgentMiddleware', 'recursionDetectionMiddleware', 'loggerMiddleware']) client.middlewareStack.remove(name);
const input = { TableName: process.env.BUDGET_TABLE, Key: { pk: { S: 'bench#leanest' } }, ...${JSON.stringify(UPDATE)},
  ExpressionAttributeValues: ${TYPED_VALUES} };
${NEXT_TYPED}
export const call = () => client.send(new UpdateItemCommand(next()));
`,
  "the budget table's client now, its UpdateItem alone (createDynamoClient().update)": `
import { createDynamoClient } from '#shared/store/budget.js';
const client = createDynamoClient({
  DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT, AWS_REGION: 'us-east-1', BUDGET_TIMEOUT_MS: 1000,
});
const input = { TableName: process.env.BUDGET_TABLE, Key: { pk: { S: 'bench#client' } }, ...${JSON.stringify(UPDATE)},
  ExpressionAttributeValues: ${TYPED_VALUES} };
${NEXT_TYPED}
export const call = () => client.update(next());
`,
  'the budget step now (createBudgetCounter().consume: the client, its per-call token, the count checked)': `
import { createBudgetCounter, createDynamoClient } from '#shared/store/budget.js';
const client = createDynamoClient({
  DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT, AWS_REGION: 'us-east-1', BUDGET_TIMEOUT_MS: 1000,
});
const counter = createBudgetCounter(client, process.env.BUDGET_TABLE);
export const call = () => counter.consume('bench-step', 1e9);
`,
  [`hand-written client (${PREVIOUS.slice(0, 7)})`]: `
import { createDynamoDb } from './shared/aws/dynamodb.js';
const client = createDynamoDb({
  endpoint: process.env.DYNAMODB_ENDPOINT, region: 'us-east-1', timeoutMs: 1000,
  credentials: () => ({ accessKeyId: 'local', secretAccessKey: 'local' }),
});
const input = { TableName: process.env.BUDGET_TABLE, Key: { pk: { S: 'bench#previous' } }, ...${JSON.stringify(UPDATE)},
  ExpressionAttributeValues: ${TYPED_VALUES} };
${NEXT_TYPED}
export const call = () => client.send('UpdateItem', next());
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
  // BENCH_CLIENT_ONLY: a pattern, the candidates whose names match it (default: all).
  const only = new RegExp(process.env.BENCH_CLIENT_ONLY ?? '');
  const names = Object.keys(ENTRIES).filter((name) => only.test(name));
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
          ...SDK_NODE_WARNING_OFF,
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
