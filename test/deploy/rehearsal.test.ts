import { execFile } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { reads } from '#shared/reads/registry.js';
import { DOCS_CSP_HEADER, REFERENCE_FILE } from '#shared/rest/reference-page.js';
import { freeMessageCeiling } from '#shared/store/free-messages.js';
import { toApiGatewayEvent } from '../../local/adapter.js';
import { type LocalBudgetStore, startBudgetStore } from '../../local/stores.js';
import { adminClientConfig } from '../../scripts/admin-connection.js';
import { currentStamp, stampIn } from '../../scripts/openapi/docs-page.js';
import { unwrapUntrusted } from '../mcp/args.js';
import {
  type Assembly,
  type FunctionSpec,
  type InvokeResult,
  invoke,
  type LocalEquivalents,
  readAssembly,
  resolveValue,
} from './support/assembly.js';
import {
  type LambdaStandIn,
  type SecretsStandIn,
  type SignedFront,
  startLambda,
  startSecretsManager,
  startSignedFront,
} from './support/aws-stand-ins.js';
import { type Certificates, makeCertificates } from './support/certs.js';
import { verifyIamToken } from './support/iam-token.js';
import { type Front, startFront } from './support/pg-front.js';

/**
 * Deployment rehearsal, on real parts: the cloud assembly `npm run synth` builds (real esbuild bundles,
 * cdk-nag), each function bundle run in a plain `node` process with the environment its template gives
 * it (plus Lambda's own variables and the stand-ins' few additions, below), a freshly created empty
 * database, the onboarding commands of docs/operating.md run verbatim, one run loaded by the data contract's
 * example through that page's tunnel URL, then the API answering through its own bundles; then that page's
 * demo load on a second empty stage.
 *
 * Only what cannot run here is stood in for, at its boundary:
 *   - values only a deployment knows (Ref, GetAtt, stack outputs, dynamic references) get local
 *     equivalents; every literal of the templates is kept, but the runtime file named below;
 *   - the environment gains only what stands in for something AWS provides outside it (STAND_IN_ADDITIONS;
 *     a test checks there is nothing else);
 *   - the RDS Proxy is a TLS front (a CA made now with openssl) that asks for a cleartext password,
 *     verifies the IAM token the function made with @aws-sdk/rds-signer (SigV4, checked by code written
 *     from the specification, with the fake credentials Lambda's environment gives the function),
 *     refuses session parameters in the startup packet and runs the template's InitQuery upstream; the Aurora endpoint is a TLS front checking the admin password;
 *   - Secrets Manager and Lambda's Invoke are small HTTP endpoints reached by the real SDK clients
 *     (AWS_ENDPOINT_URL_*); DynamoDB is dynalite behind a front that checks each request's signature;
 *   - the Lambda runtime provides the AWS SDK to the migration function (external to its bundle) and
 *     the file /var/runtime/ca-cert.pem: here the SDK package and the stand-in CA.
 * Both hostnames resolve to loopback addresses of their own, so the fronts listen on the template's
 * literal port 5432 next to (not on) a PostgreSQL server at 127.0.0.1:5432.
 */

const run = promisify(execFile);
const ROOT = process.cwd();
const STATEFUL = 'GeoApi-dev-stateful';
const STATELESS = 'GeoApi-dev-stateless';
const REGION = 'eu-west-1';
const ACCOUNT = '111111111111';
const CLUSTER_NAME = 'geo-measurement-dev.cluster-rehearsal.eu-west-1.rds.amazonaws.com';
const ADMIN_ARN = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:rehearsal-admin-AbCdEf`;
const CURSOR_ARN = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:rehearsal-cursor-GhIjKl`;
/** What the Lambda runtime places on disk, by the literal path a template names. */
const RUNTIME_FILES = ['/var/runtime/ca-cert.pem'];
/**
 * Lambda's defined runtime environment variables (Lambda developer guide, "Defined runtime environment
 * variables"): what every execution environment has besides the function's own configuration.
 */
const LAMBDA_DEFINED = [
  '_HANDLER',
  '_X_AMZN_TRACE_ID',
  'AWS_DEFAULT_REGION',
  'AWS_REGION',
  'AWS_EXECUTION_ENV',
  'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
  'AWS_LAMBDA_FUNCTION_VERSION',
  'AWS_LAMBDA_INITIALIZATION_TYPE',
  'AWS_LAMBDA_LOG_GROUP_NAME',
  'AWS_LAMBDA_LOG_STREAM_NAME',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_LAMBDA_RUNTIME_API',
  'LAMBDA_TASK_ROOT',
  'LAMBDA_RUNTIME_DIR',
  'LANG',
  'PATH',
  'LD_LIBRARY_PATH',
  'NODE_PATH',
  'TZ',
  // With active tracing (TracingConfig Active), the daemon's address and what to do outside a trace.
  'AWS_XRAY_DAEMON_ADDRESS',
  'AWS_XRAY_CONTEXT_MISSING',
];
/** The only variables the rehearsal adds beyond those, each standing in for something AWS provides. */
const STAND_IN_ADDITIONS = ['AWS_ENDPOINT_URL_DYNAMODB', 'AWS_ENDPOINT_URL_SECRETS_MANAGER', 'NODE_EXTRA_CA_CERTS'] as const;
/** The bundles the rehearsal runs. */
const BUNDLES = ['IdentityFn', 'FiguresFn', 'CatalogFn', 'McpFn', 'OpenapiFn', 'MigrationRunnerMigrate'];

const credentials = {
  AWS_ACCESS_KEY_ID: 'ASIAREHEARSAL0000001',
  AWS_SECRET_ACCESS_KEY: randomBytes(30).toString('base64'),
  AWS_SESSION_TOKEN: randomBytes(60).toString('base64'),
};
const oldPassword = randomBytes(18).toString('hex');
const newPassword = randomBytes(18).toString('hex');
const adminSecret = (password: string) =>
  JSON.stringify({ username: 'geo_admin', password, engine: 'postgres', host: CLUSTER_NAME, port: 5432, dbname: 'geo' });
const cursorSecret = randomBytes(32).toString('hex');

/**
 * A loopback address of its own for each front, 127.x.y.z with x >= 64 (far from 127.0.0.1), free on
 * port 5432: other runs on this machine pick theirs at random too.
 */
const taken = new Set<string>();
async function loopback(): Promise<string> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const ip = `127.${randomInt(64, 250)}.${randomInt(1, 250)}.${randomInt(2, 250)}`;
    if (taken.has(ip)) continue;
    taken.add(ip);
    const probe = net.createServer();
    const free = await new Promise<boolean>((resolve) => probe.once('error', () => resolve(false)).listen(5432, ip, () => resolve(true)));
    if (free) {
      await new Promise((resolve) => probe.close(resolve));
      return ip;
    }
  }
  throw new Error('no free loopback address on port 5432');
}

let started: number;
const timings: Record<string, number> = {};
const notes: string[] = [];
let assembly: Assembly;
let certs: Certificates;
let proxy: Front;
let cluster: Front;
let secrets: SecretsStandIn;
let lambda: LambdaStandIn;
let budget: LocalBudgetStore;
let budgetFront: SignedFront;
let budgetTable: string;
let proxyIp: string;
let clusterIp: string;
let ownerUrl: string;
let teardown: Array<() => Promise<unknown>> = [];
let lite: PGlite | undefined;
let initQuery: string | undefined;
const invocations: Array<{ fn: string; event: unknown; ms: number; result: InvokeResult }> = [];
/**
 * The X-Ray daemon a traced function sends its segments to (UDP, as on Lambda), and what it received. Every
 * invocation is sampled (Sampled=1 in its _X_AMZN_TRACE_ID), so every call of a traced bundle reports.
 */
const xrayDaemon = createSocket('udp4');
const xraySegments: Array<Record<string, unknown>> = [];
/** The trace root of the latest invocation of a traced function. */
let lastTraceRoot: string | undefined;

/** Where a stage's functions find its proxy and cluster stand-ins. */
interface StageAddresses {
  proxyIp: string;
  clusterIp: string;
}
const mainStage = (): StageAddresses => ({ proxyIp, clusterIp });
/** A second stage, for the demo load: its own empty database behind its own stand-ins. */
let demoStage: StageAddresses;

const byName = (name: string): FunctionSpec => {
  const fn = assembly.functions.find((f) => f.logicalId.startsWith(name));
  if (!fn) throw new Error(`no function ${name} in the assembly`);
  return fn;
};

/** The function's environment: the template's variables resolved, plus what Lambda's runtime sets. */
function environmentOf(fn: FunctionSpec, stage: StageAddresses = mainStage()): Record<string, string> {
  const local: LocalEquivalents = {
    byResource: {
      'AWS::RDS::DBProxy.Endpoint': stage.proxyIp,
      'AWS::RDS::DBCluster.Endpoint.Address': stage.clusterIp,
      'AWS::DynamoDB::Table.Ref': budgetTable,
      'AWS::SecretsManager::Secret.Ref': CURSOR_ARN,
      'AWS::SecretsManager::SecretTargetAttachment.Ref': ADMIN_ARN,
    },
    secretValue: (arn) => {
      if (arn === CURSOR_ARN) return cursorSecret;
      throw new Error(`no local value for the dynamic reference to ${arn}`);
    },
  };
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(fn.environment)) {
    const value = resolveValue(assembly, fn.stack, v, local);
    // The runtime's file of Amazon's CAs (the RDS CA among them) is, here, the stand-in cluster's CA.
    env[k] = RUNTIME_FILES.includes(value) ? certs.caFile : value;
  }
  // Lambda's own variables of a traced function: the daemon (here, the stand-in socket) and the
  // invocation's trace header, a sampled trace of its own for each call.
  const traced: Record<string, string> = {};
  if (fn.tracing) {
    lastTraceRoot = `1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;
    traced.AWS_XRAY_DAEMON_ADDRESS = `127.0.0.1:${(xrayDaemon.address() as { port: number }).port}`;
    traced.AWS_XRAY_CONTEXT_MISSING = 'LOG_ERROR';
    traced._X_AMZN_TRACE_ID = `Root=${lastTraceRoot};Parent=${randomBytes(8).toString('hex')};Sampled=1`;
  }
  const additions: Partial<Record<(typeof STAND_IN_ADDITIONS)[number], string>> = {
    // The SDK clients reach DynamoDB and Secrets Manager at their regional endpoints; here, the stand-ins.
    AWS_ENDPOINT_URL_DYNAMODB: budgetFront.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
  };
  // RDS Proxy's certificate is issued by ACM under Amazon Root CA 1, which Node trusts by default, so the
  // service functions' template names no CA. The stand-in proxy's CA takes that built-in trust's place.
  if (fn.stack === STATELESS && env.NODE_EXTRA_CA_CERTS === undefined && env.DB_HOST !== undefined)
    additions.NODE_EXTRA_CA_CERTS = certs.caFile;
  return {
    ...env,
    ...additions,
    ...traced,
    ...credentials,
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    AWS_LAMBDA_FUNCTION_NAME: fn.logicalId,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    LAMBDA_TASK_ROOT: fn.taskRoot,
    TZ: ':UTC',
    LANG: 'en_US.UTF-8',
    PATH: process.env.PATH ?? '/usr/bin:/bin',
  };
}

async function call(name: string, event: unknown, stage: StageAddresses = mainStage()): Promise<InvokeResult> {
  const fn = byName(name);
  const t0 = Date.now();
  const result = await invoke(fn, environmentOf(fn, stage), event);
  invocations.push({ fn: name, event, ms: Date.now() - t0, result });
  return result;
}

/** The headers every request of an MCP host carries: the key, JSON, and the two media types the transport takes. */
const mcpHeaders = (key: string): Record<string, string> => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
});

/** A POST to the MCP function: `message` as JSON, or a string sent as it is (a body that is not JSON). */
const mcp = (headers: Record<string, string>, message: unknown) =>
  http('McpFn', 'POST', '/api/v1/mcp', headers, typeof message === 'string' ? message : JSON.stringify(message));

async function http(
  name: string,
  method: string,
  url: string,
  headers: Record<string, string> = {},
  body = '',
  stage: StageAddresses = mainStage(),
) {
  const { event } = toApiGatewayEvent({ method, url, rawHeaders: Object.entries(headers).flat(), body });
  const out = await call(name, event, stage);
  if (!out.ok) throw new Error(`${name} failed: ${out.errorType}: ${out.errorMessage}\n${out.logs}`);
  const res = out.result as { statusCode: number; headers: Record<string, string>; body: string };
  return { status: res.statusCode, headers: res.headers, text: res.body, json: () => JSON.parse(res.body) as Record<string, any> };
}

/** The page whose commands the rehearsal runs as written (deploying and operating a stage). */
const OPERATING_PAGE = 'docs/operating.md';

/** The fenced block after `<!-- rehearsal:NAME -->` in docs/operating.md, as its reader sees it. */
async function pageBlock(name: string): Promise<string> {
  const page = await readFile(join(ROOT, OPERATING_PAGE), 'utf8');
  const at = page.search(new RegExp(`<!-- rehearsal:${name}(?=\\s|-->)`));
  const block = /```(?:sh|bash)\n([\s\S]*?)```/.exec(page.slice(at));
  if (at < 0 || !block) throw new Error(`${OPERATING_PAGE} has no block marked rehearsal:${name}`);
  return block[1]!;
}

/**
 * The DATABASE_URL of the tunnel recipe in docs/operating.md, its form checked (the tunnel's local end through
 * hostaddr, verify-full, the CA bundle) and only what differs here mapped: the cluster name the outputs
 * would give, the tunnel's local address and port (the cluster stand-in's own), the CA file (the stand-in's).
 */
async function pageTunnelUrl(): Promise<string> {
  const line = /^export DATABASE_URL="([^"]+)"$/m.exec(await pageBlock('tunnel-url'));
  if (!line) throw new Error(`${OPERATING_PAGE} tunnel-url block exports no DATABASE_URL`);
  const url = new URL(line[1]!.replace('$CLUSTER', CLUSTER_NAME));
  expect({
    host: url.hostname,
    port: url.port,
    user: url.username,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
  }).toEqual({
    host: CLUSTER_NAME,
    port: '15432',
    user: 'geo_admin',
    path: '/geo',
    query: { hostaddr: '127.0.0.1', sslmode: 'verify-full', sslrootcert: 'global-bundle.pem' },
  });
  url.port = '5432';
  url.searchParams.set('hostaddr', clusterIp);
  url.searchParams.set('sslrootcert', certs.caFile);
  return url.toString();
}

async function sh(script: string, env: Record<string, string>): Promise<string> {
  const out = await run('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', ...env },
    maxBuffer: 10 << 20,
  });
  return out.stdout;
}

async function time<T>(label: string, work: () => Promise<T>): Promise<T> {
  const t0 = Date.now();
  try {
    return await work();
  } finally {
    timings[label] = Date.now() - t0;
  }
}

interface Upstream {
  host: string;
  port: number;
  database: string;
  owner: string;
}

/** An empty database: a fresh one on the PostgreSQL server named by DATABASE_URL, or an embedded store. */
async function emptyDatabase(label: string): Promise<{ upstream: Upstream; ownerUrl: string; lite?: PGlite }> {
  if (process.env.DATABASE_URL) {
    const server = new URL(process.env.DATABASE_URL);
    const database = `geo_rehearsal_${label}_${Date.now()}_${process.pid}`;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    // Aurora has this role built in; the migration runner grants it to geo_reader. Roles are per server.
    await admin.query(`DO $$ BEGIN CREATE ROLE rds_iam NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`);
    await admin.end();
    teardown.push(async () => {
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await c.end();
    });
    const upstream = {
      host: server.hostname,
      port: Number(server.port || 5432),
      database,
      owner: decodeURIComponent(server.username) || 'postgres',
    };
    server.pathname = `/${database}`;
    return { upstream, ownerUrl: server.toString() };
  }
  const db = await PGlite.create();
  await db.exec('CREATE ROLE rds_iam NOLOGIN');
  const socket = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
  await socket.start();
  const [host, port] = socket.getServerConn().split(':');
  teardown.push(async () => {
    await socket.stop();
    await db.close();
  });
  return {
    upstream: { host: host!, port: Number(port), database: 'postgres', owner: 'postgres' },
    ownerUrl: `postgres://postgres@${socket.getServerConn()}/postgres?sslmode=disable`,
    lite: db,
  };
}

/** A stage's stand-ins of RDS Proxy and of the cluster endpoint, in front of its database. */
async function startFronts(stage: StageAddresses, upstream: Upstream): Promise<{ proxy: Front; cluster: Front }> {
  const proxyFront = await startFront({
    host: stage.proxyIp,
    port: 5432,
    ...certs.server('proxy'),
    acceptedParameters: ['application_name', 'client_encoding'],
    ...(initQuery ? { initQuery } : {}),
    authenticate: (user, password) =>
      user !== 'geo_reader'
        ? 'the proxy admits geo_reader only'
        : verifyIamToken(password, {
            hostPort: `${stage.proxyIp}:5432`,
            user,
            region: REGION,
            accessKeyId: credentials.AWS_ACCESS_KEY_ID,
            secretAccessKey: credentials.AWS_SECRET_ACCESS_KEY,
            sessionToken: credentials.AWS_SESSION_TOKEN,
          }),
    upstream: { host: upstream.host, port: upstream.port, user: 'geo_reader', database: upstream.database },
  });
  teardown.push(() => proxyFront.close());
  const clusterFront = await startFront({
    host: stage.clusterIp,
    port: 5432,
    ...certs.server('cluster'),
    authenticate: (user, password) => (user === 'geo_admin' && password === newPassword ? null : 'wrong password'),
    upstream: { host: upstream.host, port: upstream.port, user: upstream.owner, database: upstream.database },
  });
  teardown.push(() => clusterFront.close());
  return { proxy: proxyFront, cluster: clusterFront };
}

beforeAll(async () => {
  xrayDaemon.on('message', (msg) => {
    const [header, body] = msg.toString('utf8').split('\n');
    if (header === '{"format":"json","version":1}' && body) xraySegments.push(JSON.parse(body));
  });
  await new Promise<void>((resolve) => xrayDaemon.bind(0, '127.0.0.1', resolve));
  teardown.push(async () => xrayDaemon.close());
  started = Date.now();
  // The documented command (docs/operating.md, first deploy): real esbuild bundling and the cdk-nag gate, offline. CI synthesizes once
  // with the same command and hands the assembly to its three `npm test` runs (REHEARSAL_ASSEMBLY).
  let outdir = process.env.REHEARSAL_ASSEMBLY;
  if (!outdir) {
    const fresh = await mkdtemp(join(tmpdir(), 'geo-rehearsal-cdk-'));
    teardown.push(() => rm(fresh, { recursive: true, force: true }));
    await time('synth (npm run synth)', () =>
      run('npm', ['run', 'synth', '--silent'], {
        cwd: ROOT,
        env: { ...process.env, NODE_OPTIONS: '', CDK_OUTDIR: fresh },
        maxBuffer: 20 << 20,
      }),
    );
    outdir = fresh;
  }
  assembly = readAssembly(outdir, [STATEFUL, STATELESS]);
  // The runtime provides the AWS SDK the migration bundle leaves external, from outside the task root.
  const runtimeSdk = join(outdir, 'node_modules', '@aws-sdk', 'client-secrets-manager');
  await mkdir(dirname(runtimeSdk), { recursive: true });
  await symlink(join(ROOT, 'node_modules', '@aws-sdk', 'client-secrets-manager'), runtimeSdk).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });

  proxyIp = await loopback();
  clusterIp = await loopback();
  demoStage = { proxyIp: await loopback(), clusterIp: await loopback() };
  certs = await makeCertificates({
    proxy: [`IP:${proxyIp}`, `IP:${demoStage.proxyIp}`],
    cluster: [`IP:${clusterIp}`, `IP:${demoStage.clusterIp}`, `DNS:${CLUSTER_NAME}`],
  });
  teardown.push(() => rm(certs.dir, { recursive: true, force: true }));

  const main = await emptyDatabase('main');
  ownerUrl = main.ownerUrl;
  lite = main.lite;

  budget = await startBudgetStore();
  budgetTable = `geo-rehearsal-budget-${randomBytes(4).toString('hex')}`;
  await budget.createTable(budgetTable);
  teardown.push(() => budget.close());
  budgetFront = await startSignedFront(budget.endpoint, {
    accessKeyId: credentials.AWS_ACCESS_KEY_ID,
    secretAccessKey: credentials.AWS_SECRET_ACCESS_KEY,
    sessionToken: credentials.AWS_SESSION_TOKEN,
    region: REGION,
    service: 'dynamodb',
  });
  teardown.push(() => budgetFront.close());
  // The admin secret is rotated between the migration runner's first read and its first login.
  secrets = await startSecretsManager({ [ADMIN_ARN]: [adminSecret(oldPassword), adminSecret(newPassword)] });
  teardown.push(() => secrets.close());

  const targetGroup = Object.values(assembly.templates[STATEFUL]!.Resources).find((r) => r.Type === 'AWS::RDS::DBProxyTargetGroup')!;
  initQuery = (targetGroup.Properties!.ConnectionPoolConfigurationInfo as { InitQuery?: string }).InitQuery;
  ({ proxy, cluster } = await startFronts(mainStage(), main.upstream));
  lambda = await startLambda((name, payload) => call(name, payload));
  teardown.push(() => lambda.close());
}, 600_000);

afterAll(async () => {
  for (const step of teardown.reverse()) await step().catch(() => undefined);
  teardown = [];
  const failed = invocations.filter((i) => !i.result.ok);
  if (failed.length > 0) console.log(failed.map((f) => `${f.fn}: ${f.result.errorMessage}\n${f.result.logs}`).join('\n'));
  console.log(
    `deployment rehearsal: ${Math.round((Date.now() - started) / 1000)} s in all; ${Object.entries(timings)
      .map(([k, v]) => `${k} ${Math.round(v / 100) / 10} s`)
      .join(', ')}${notes.map((n) => `; ${n}`).join('')}`,
  );
});

describe('deployment rehearsal: from an empty database to answered calls, through the CDK-built bundles', () => {
  let key = '';

  test('the migration bundle migrates the empty database as the custom resource does, surviving a rotated admin secret', async () => {
    const migrate = await time('migrate', () =>
      call('MigrationRunnerMigrate', {
        RequestType: 'Create',
        ResourceType: 'Custom::MeasurementStoreSchema',
        LogicalResourceId: 'MigrationRunnerSchema',
        ResourceProperties: {},
      }),
    );
    expect(migrate.ok).toBe(true);
    const result = migrate.result as { PhysicalResourceId: string; Data: { Applied: string } };
    expect(result.PhysicalResourceId).toBe('measurement-store-schema');
    expect(result.Data.Applied).toMatch(/^001_identity\.sql,002_measurements\.sql,003_rollups\.sql,004_answer_days\.sql/);
    // First login with the password read before the rotation, refused; the secret read again, then in.
    expect(cluster.events.map((e) => e.outcome)).toEqual(['refused', 'ok']);
    expect(secrets.reads.filter((r) => r === ADMIN_ARN)).toHaveLength(2);
    expect(migrate.logs).toContain('login failed, retrying');

    const db = new pg.Client({ connectionString: ownerUrl });
    await db.connect();
    try {
      const member = await db.query(
        "SELECT 1 FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid JOIN pg_roles u ON u.oid = m.member WHERE r.rolname = 'rds_iam' AND u.rolname = 'geo_reader'",
      );
      expect(member.rows).toHaveLength(1);
    } finally {
      await db.end();
    }
  }, 120_000);

  // On the PostgreSQL server only: the embedded store is one backend behind its socket, whose sessions
  // never wait on each other's locks (the lock waits themselves are tested on both in test/store/admin).
  (process.env.DATABASE_URL ? test : test.skip)(
    "a run that meets another transaction's lock, through the bundle: gives up its attempt, logs it, tries again and answers CloudFormation",
    async () => {
      const holder = new pg.Client({ connectionString: ownerUrl });
      await holder.connect();
      try {
        // What another migrate run holds for the length of its transaction.
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE schema_migrations IN EXCLUSIVE MODE');
        const waiters = async () =>
          (
            await holder.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_locks
                WHERE relation = 'schema_migrations'::regclass AND NOT granted
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
            )
          ).rows[0]!.n;
        const until = async (holds: (n: number) => boolean) => {
          while (!holds(await waiters())) await new Promise((resolve) => setTimeout(resolve, 25));
        };
        const update = call('MigrationRunnerMigrate', {
          RequestType: 'Update',
          ResourceType: 'Custom::MeasurementStoreSchema',
          LogicalResourceId: 'MigrationRunnerSchema',
          PhysicalResourceId: 'measurement-store-schema',
          ResourceProperties: {},
        });
        await until((n) => n === 1);
        // Its first attempt waits out its lock timeout, rolls back and pauses; the lock goes meanwhile.
        await until((n) => n === 0);
        await holder.query('COMMIT');
        const migrated = await update;
        expect(migrated.ok).toBe(true);
        expect(migrated.result).toEqual({ PhysicalResourceId: 'measurement-store-schema', Data: { Applied: 'none' } });
        expect(migrated.logs.match(/migrate waited too long for a lock, trying again/g)).toHaveLength(1);
        expect(migrated.logs).toContain('lock timeout');
      } finally {
        await holder.query('ROLLBACK').catch(() => undefined);
        await holder.end();
      }
    },
    120_000,
  );

  test('the onboarding of docs/operating.md, verbatim, through the migration function (ADMIN_FUNCTION), ends with a key', async () => {
    const script = await pageBlock('onboarding');
    expect(script).toMatch(/npm run admin -- key create/);
    const out = await time('onboarding (docs/operating.md)', () =>
      sh(script, {
        ...credentials,
        AWS_REGION: REGION,
        ADMIN_FUNCTION: byName('MigrationRunnerMigrate').logicalId,
        AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint,
        DATABASE_URL: '',
      }),
    );
    key = /geo_live_[0-9A-Za-z]+/.exec(out)?.[0] ?? '';
    expect(key).not.toBe('');
  }, 300_000);

  test('the tunnel of docs/operating.md, as written: the admin CLI and the data contract example through the cluster stand-in, with hostaddr, verify-full and the CA bundle', async () => {
    const tunnelUrl = await pageTunnelUrl();
    const script = await pageBlock('tunnel');
    expect(script).toContain('examples/pipeline/load-run.ts');
    const before = cluster.events.length;
    const out = await time('tunnel block (docs/operating.md: admin CLI + data contract example)', () =>
      sh(script, { DATABASE_URL: tunnelUrl, PGPASSWORD: newPassword, ADMIN_FUNCTION: '' }),
    );
    const lines = out.trim().split('\n');
    expect(lines.some((l) => /^acme\s+Acme Inc\.\s+growth\s+1\s+1\s/.test(l))).toBe(true);
    expect(JSON.parse(lines.pop()!)).toMatchObject({ analysis: 'launch', run: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    // Both logged in at the cluster stand-in, as the owner, with the password: no direct way around it.
    expect(cluster.events.slice(before)).toEqual([
      expect.objectContaining({ user: 'geo_admin', database: 'geo', outcome: 'ok' }),
      expect.objectContaining({ user: 'geo_admin', database: 'geo', outcome: 'ok' }),
    ]);

    const refused = async (u: string) => {
      const c = new pg.Client({ ...adminClientConfig(u), password: newPassword });
      const err = await c.connect().then(
        () => null,
        (e: Error) => e.message,
      );
      await c.end().catch(() => undefined);
      return err;
    };
    const variant = (edit: (u: URL) => void) => {
      const u = new URL(tunnelUrl);
      edit(u);
      return u.toString();
    };
    // Node's own store does not know the CA (as it does not know the RDS CA): refused.
    expect(await refused(variant((u) => u.searchParams.delete('sslrootcert')))).toMatch(/certificate/);
    // The right CA but a name the certificate does not carry: refused.
    expect(await refused(variant((u) => (u.hostname = 'other.example.com')))).toMatch(/altnames|Hostname/);
    // The embedded store is one backend for every connection: from here on it acts as the service role.
    if (lite) await lite.exec('SET ROLE geo_reader');
  }, 300_000);

  test('/me: 200, through the proxy with an IAM token, the statement timeout set by the proxy, not the client', async () => {
    const res = await http('IdentityFn', 'GET', '/api/v1/me', { authorization: `Bearer ${key}` });
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.json()).toMatchObject({
      workspace: { slug: 'acme' },
      plan: { key: 'growth' },
      rate_limit: { per_minute: 600, remaining: 599 },
      reach: { analyses: 1 },
    });
    const logins = proxy.events.filter((e) => e.outcome === 'ok');
    expect(logins.length).toBeGreaterThan(0);
    expect(proxy.events.filter((e) => e.outcome === 'refused')).toEqual([]);
    for (const e of logins) expect(e).toMatchObject({ user: 'geo_reader', database: 'geo' });
    for (const e of logins) expect(e.parameters.statement_timeout).toBeUndefined();
    // The template's InitQuery, run by the proxy on its own connection: SET statement_timeout = <dbStatementMs>.
    expect(logins.every((e) => e.initQuery === true)).toBe(true);
  }, 120_000);

  test('a figure read: 200 with the figures worked out by hand in the example', async () => {
    const res = await http('FiguresFn', 'GET', '/api/v1/analyses/launch/metrics', { authorization: `Bearer ${key}` });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body.context).toMatchObject({ state: 'measured', extraction_late: false, recipes: ['v1'] });
    const figures = JSON.stringify(body);
    for (const expected of ['"visibility":{"value":0.75', '"share_of_voice":{"value":0.5', '"source_share":{"value":0.5']) {
      expect(figures).toContain(expected);
    }
    expect(figures).toMatch(/"average_position":\{"value":1\.333333/);
    expect(figures).toMatch(/"sentiment":\{"value":0\.4[,}]/);
  }, 120_000);

  test('the example’s splits as worked out by hand: branded segments, source categories, the prompts as the pipeline classified them', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const metrics = (await http('FiguresFn', 'GET', '/api/v1/analyses/launch/metrics?segments=branded', auth)).json();
    const vis = (f: { visibility: { numerator: number; denominator: number; value: number } }) => f.visibility;
    expect(vis(metrics.segments.branded)).toMatchObject({ numerator: 1, denominator: 1, value: 1 });
    expect(vis(metrics.segments.non_branded)).toMatchObject({ numerator: 2, denominator: 3, value: 0.666667 });
    expect(vis(metrics.metrics)).toMatchObject({ numerator: 3, denominator: 4 });
    const sources = (await http('FiguresFn', 'GET', '/api/v1/analyses/launch/sources', auth)).json();
    expect(sources.categories.owned).toMatchObject({ numerator: 2, denominator: 4 });
    expect(sources.categories.competitor).toMatchObject({ numerator: 1, denominator: 4 });
    expect(sources.categories.other).toMatchObject({ numerator: 1, denominator: 4 });
    expect(sources.items.find((i: { domain: string }) => i.domain === 'initech.com')).toMatchObject({ category: 'competitor' });
    const prompts = (await http('CatalogFn', 'GET', '/api/v1/analyses/launch/prompts', auth)).json();
    const byText = new Map((prompts.items as Array<{ text: string; branded: boolean; branded_source: string }>).map((p) => [p.text, p]));
    expect(byText.get('How much does Acme cost per seat?')).toMatchObject({ branded: true, branded_source: 'pipeline' });
    expect(byText.get('What are alternatives to spreadsheets for planning work?')).toMatchObject({
      branded: false,
      branded_source: 'pipeline',
    });
    expect(byText.get('Which project management tool is best for a small agency?')).toMatchObject({
      branded: false,
      branded_source: 'rule',
    });
  }, 120_000);

  test('MCP through the bundle: a body that is not JSON is the SDK’s parse error, an answered JSON-RPC error', async () => {
    const res = await mcp(mcpHeaders(key), '{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(res.status).toBe(400);
    expect(res.json().error.code).toBe(-32700);
  }, 120_000);

  test('MCP tools/call of the figure reads with segments through the bundle: the figures the REST functions serve', async () => {
    const withoutBudget = ({ rate_limit: _, ...rest }: Record<string, unknown>) => rest;
    for (const [tool, fn, path] of [
      ['get_metrics', 'FiguresFn', '/api/v1/analyses/launch/metrics?segments=branded'],
      ['list_competitors', 'FiguresFn', '/api/v1/analyses/launch/competitors?segments=branded'],
      ['list_engines', 'FiguresFn', '/api/v1/analyses/launch/engines?segments=branded'],
    ] as const) {
      const rest = await http(fn, 'GET', path, { authorization: `Bearer ${key}` });
      expect(rest.status).toBe(200);
      const called = await mcp(mcpHeaders(key), {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: tool, arguments: { analysis: 'launch', segments: 'branded' } },
      });
      expect(called.status).toBe(200);
      const result = called.json().result;
      expect(result.isError).not.toBe(true);
      // The split is there (at the top for the metrics, per engine and per brand for the lists).
      expect(JSON.stringify(result.structuredContent)).toContain('"non_branded":{');
      // MCP wraps what AI engines wrote (brand names) as untrusted content; unwrapped, it is the REST body.
      expect(withoutBudget(unwrapUntrusted(result.structuredContent) as Record<string, unknown>)).toEqual(withoutBudget(rest.json()));
    }
  }, 120_000);

  test('a catalog read: 200 with the run and its per-engine progress', async () => {
    const res = await http('CatalogFn', 'GET', '/api/v1/analyses/launch/runs', { authorization: `Bearer ${key}` });
    expect(res.status).toBe(200);
    const [latest] = res.json().items as Array<Record<string, any>>;
    expect(latest).toMatchObject({ state: 'finished' });
    expect(JSON.stringify(latest)).toContain('"expected":3,"collected":2,"extracted":1,"failed":1');
  }, 120_000);

  test('MCP tools/list: 200 with one tool per read', async () => {
    const res = await mcp(mcpHeaders(key), { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(res.status).toBe(200);
    expect((res.json().result.tools as unknown[]).length).toBe(reads.length);
  }, 120_000);

  test('MCP: header values above U+00FF (as API Gateway decodes them) are served; only tools/call spends', async () => {
    // What a client sends on the wire is UTF-8; the adapter, like API Gateway, decodes it.
    const wire = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
    const headers = {
      ...mcpHeaders(key),
      'cf-ipcity': wire('Łódź'),
      'user-agent': wire('Mozilla/5.0 (ブラウザ) 🚀'),
      'x-forwarded-for': '203.0.113.7',
    };
    const list = await mcp(headers, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(list.status).toBe(200);
    expect(list.headers['x-ratelimit-remaining']).toBeUndefined();
    const called = await mcp(headers, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_me', arguments: {} } });
    expect(called.status).toBe(200);
    expect(called.json().result.isError).toBeFalsy();
    expect(called.json().result.structuredContent.rate_limit.remaining).toBe(Number(called.headers['x-ratelimit-remaining']));
    // A header the SDK does read, holding what a web Headers object cannot: refused with its name, not a 500.
    const refused = await mcp({ ...headers, 'mcp-method': wire('tools/list→') }, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(refused.status).toBe(400);
    expect(refused.json().error).toEqual({
      code: -32600,
      message: 'Header mcp-method holds a character outside ISO-8859-1; send it as ASCII.',
    });
  }, 120_000);

  test('MCP 2026-07-28 through the bundle: server/discover and a tools/call with the per-request envelope and its headers', async () => {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'rehearsal', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const headers = (method: string, name?: string) => ({
      ...mcpHeaders(key),
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    });
    const discover = await mcp(headers('server/discover'), {
      jsonrpc: '2.0',
      id: 1,
      method: 'server/discover',
      params: { _meta: envelope },
    });
    expect(discover.status).toBe(200);
    expect(discover.json().result.supportedVersions).toEqual(['2026-07-28']);
    const called = await mcp(headers('tools/call', 'get_me'), {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'get_me', arguments: {}, _meta: envelope },
    });
    expect(called.status).toBe(200);
    expect(called.json().result.structuredContent.rate_limit.remaining).toBe(Number(called.headers['x-ratelimit-remaining']));
  }, 120_000);

  test('MCP: a key past its bound on free messages gets 429 rate_limited from the bundle, with the bound in the rate headers', async () => {
    const { DynamoDBClient, ScanCommand, UpdateItemCommand, DeleteItemCommand } = await import('@aws-sdk/client-dynamodb');
    const client = new DynamoDBClient({
      endpoint: budget.endpoint,
      region: REGION,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    const headers = mcpHeaders(key);
    const list = () => mcp(headers, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    // The key's own counter item, as the bundle wrote it for the free messages above; then its bound
    // reached for this minute and the next (a call that crosses the minute meets it too).
    const items = (await client.send(new ScanCommand({ TableName: budgetTable }))).Items ?? [];
    const counted = items.map((i) => i.pk?.S ?? '').find((pk) => pk.startsWith('free#'));
    expect(counted).toBeDefined();
    const keyId = (counted as string).split('#')[1] as string;
    const perMinute = Number(
      (await mcp(headers, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_me', arguments: {} } })).headers[
        'x-ratelimit-limit'
      ],
    );
    const ceiling = freeMessageCeiling(perMinute);
    const minute = Math.floor(Date.now() / 60_000);
    const pks = [minute, minute + 1].map((m) => `free#${keyId}#${m}`);
    try {
      for (const pk of pks)
        await client.send(
          new UpdateItemCommand({
            TableName: budgetTable,
            Key: { pk: { S: pk } },
            UpdateExpression: 'SET messages = :n',
            ExpressionAttributeValues: { ':n': { N: String(ceiling) } },
          }),
        );
      const refused = await list();
      expect(refused.status).toBe(429);
      expect(refused.json().error.code).toBe('rate_limited');
      const seconds = Number(refused.headers['retry-after']);
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect({
        limit: refused.headers['x-ratelimit-limit'],
        remaining: refused.headers['x-ratelimit-remaining'],
        reset: refused.headers['x-ratelimit-reset'],
      }).toEqual({ limit: String(ceiling), remaining: '0', reset: String(seconds) });
    } finally {
      for (const pk of pks) await client.send(new DeleteItemCommand({ TableName: budgetTable, Key: { pk: { S: pk } } }));
      client.destroy();
    }
    // Served again once the minute's count is gone: a served free message carries no rate headers.
    const served = await list();
    expect(served.status).toBe(200);
    expect(served.headers['x-ratelimit-limit']).toBeUndefined();
  }, 120_000);

  test('openapi.json: 200, the committed bytes; and $default answers the envelope (404, 405 with Allow)', async () => {
    const doc = await http('OpenapiFn', 'GET', '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.text).toBe(await readFile(join(ROOT, 'openapi', 'openapi.json'), 'utf8'));
    const cases: Array<[string, string, number, string, string | undefined]> = [
      ['GET', '/api/v1/no-such-thing', 404, 'not_found', undefined],
      ['POST', '/api/v1/me', 405, 'method_not_allowed', 'GET, HEAD, OPTIONS'],
      ['GET', '/api/v1/mcp', 405, 'method_not_allowed', 'POST, OPTIONS'],
      ['DELETE', '/api/v1/mcp', 405, 'method_not_allowed', 'POST, OPTIONS'],
    ];
    for (const [method, path, status, code, allow] of cases) {
      const { event } = toApiGatewayEvent({ method, url: path, rawHeaders: [], body: '' });
      expect(event.routeKey).toBe('$default');
      const res = await http('OpenapiFn', method, path);
      expect(res.status).toBe(status);
      const body = res.json();
      expect(body.error.code).toBe(code);
      expect(res.headers['x-request-id']).toBe(body.error.request_id);
      expect(res.headers.allow).toBe(allow);
    }
  }, 120_000);

  test('active tracing through the bundle: the call sends caller, budget and data subsegments to the daemon, in its trace', async () => {
    const figures = byName('FiguresFn');
    expect(figures.tracing).toBe(true);
    const res = await http('FiguresFn', 'GET', '/api/v1/analyses/launch/metrics', { authorization: `Bearer ${key}` });
    expect(res.status).toBe(200);
    const root = lastTraceRoot;
    // The segments left by UDP before the process exited; give the socket a moment to read them.
    for (let i = 0; i < 100 && xraySegments.filter((d) => d.trace_id === root).length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    const mine = xraySegments.filter((d) => d.trace_id === root);
    expect(mine.map((d) => d.name)).toEqual(['caller', 'budget', 'data']);
    for (const d of mine) expect(d).toMatchObject({ type: 'subsegment' });
    expect(mine.some((d) => d.fault || d.error)).toBe(false);
  }, 120_000);

  test('HEAD, OPTIONS and the index through the bundles: HEAD as GET without a body, OPTIONS 204 with Allow, /api/v1/ links', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const get = await http('IdentityFn', 'GET', '/api/v1/me', auth);
    const head = await http('IdentityFn', 'HEAD', '/api/v1/me', auth);
    expect({ status: head.status, body: head.text }).toEqual({ status: 200, body: '' });
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.text)));
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['x-ratelimit-limit']).toBe(get.headers['x-ratelimit-limit']);
    const options = await http('OpenapiFn', 'OPTIONS', '/api/v1/analyses/launch/metrics');
    expect({ status: options.status, allow: options.headers.allow, body: options.text }).toEqual({
      status: 204,
      allow: 'GET, HEAD, OPTIONS',
      body: '',
    });
    const index = await http('OpenapiFn', 'GET', '/api/v1/');
    expect(index.status).toBe(200);
    expect(index.json().links).toEqual({ openapi: '/api/v1/openapi.json', mcp: '/api/v1/mcp', reference: '/api/v1/docs' });
  }, 120_000);

  test('the reference page the index links: the page the bundling put beside the bundle, built from this openapi.json, as HTML with its policy', async () => {
    const page = await http('OpenapiFn', 'GET', '/api/v1/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(DOCS_CSP_HEADER);
    // Redocly's output is not byte for byte the same from one build to the next: the page is compared with
    // the bundle's own file, and its stamp with the document it must have been built from.
    expect(page.text).toBe(await readFile(join(byName('OpenapiFn').taskRoot, REFERENCE_FILE), 'utf8'));
    expect(stampIn(page.text)).toBe(await currentStamp(ROOT));
    expect(page.text).toContain('<title>GEO measurement API reference</title>');
  }, 120_000);

  test("the demo load of docs/operating.md, verbatim, on a second empty stage through its migration function: well inside the function's timeout, then reads answer", async () => {
    const db = await time('demo stage: empty database', () => emptyDatabase('demo'));
    const fronts = await startFronts(demoStage, db.upstream);
    const demoLambda = await startLambda((name, payload) => call(name, payload, demoStage));
    teardown.push(() => demoLambda.close());
    // A new stage's store is migrated by the custom resource during its deployment, before anyone loads it.
    const migrated = await call(
      'MigrationRunnerMigrate',
      {
        RequestType: 'Create',
        ResourceType: 'Custom::MeasurementStoreSchema',
        LogicalResourceId: 'MigrationRunnerSchema',
        ResourceProperties: {},
      },
      demoStage,
    );
    expect(migrated.ok).toBe(true);

    const script = await pageBlock('demo');
    expect(script).toMatch(/npm run admin -- demo load/);
    const out = await time('demo block (docs/operating.md)', () =>
      sh(script, {
        ...credentials,
        AWS_REGION: REGION,
        ADMIN_FUNCTION: byName('MigrationRunnerMigrate').logicalId,
        AWS_ENDPOINT_URL_LAMBDA: demoLambda.endpoint,
        DATABASE_URL: '',
      }),
    );
    const demoKey = /geo_live_[0-9A-Za-z]+/.exec(out)?.[0] ?? '';
    expect(demoKey).not.toBe('');

    // The load is one invocation of the migration function: its time against that function's timeout.
    const loads = invocations.filter(
      (i) =>
        i.fn.startsWith('MigrationRunnerMigrate') &&
        JSON.stringify((i.event as { admin?: unknown }).admin ?? []).startsWith('["demo","load"'),
    );
    expect(loads).toHaveLength(1);
    const [load] = loads;
    expect(load!.result.ok).toBe(true);
    const timeoutMs = byName('MigrationRunnerMigrate').timeoutSeconds * 1000;
    notes.push(
      `demo load: ${(load!.ms / 1000).toFixed(1)} s (function CPU ${((load!.result.cpuMs ?? 0) / 1000).toFixed(1)} s) of the migration function's ${timeoutMs / 1000} s timeout`,
    );
    // A quarter at most here leaves room for Lambda's third of a vCPU at 512 MB and for a slower database.
    expect(load!.ms).toBeLessThan(timeoutMs / 4);

    // verify-aggregates through the same function: a month row set off by hand is the loaded demo's one
    // drift, reported with exit 3 so that a scheduled check alarms on the status, until --repair sets it;
    // then no drift, exit 0.
    const viaFunction = {
      ...credentials,
      AWS_REGION: REGION,
      ADMIN_FUNCTION: byName('MigrationRunnerMigrate').logicalId,
      AWS_ENDPOINT_URL_LAMBDA: demoLambda.endpoint,
      DATABASE_URL: '',
    };
    const verify = 'npm run --silent admin -- verify-aggregates';
    const owner = new pg.Client({ connectionString: db.ownerUrl });
    await owner.connect();
    await owner.query(`UPDATE fig_month_engine SET extracted = extracted + 1
                        WHERE (analysis_id, month, engine) = (SELECT analysis_id, month, engine FROM fig_month_engine ORDER BY 1, 2, 3 LIMIT 1)`);
    await owner.end();
    await expect(sh(verify, viaFunction)).rejects.toMatchObject({
      code: 3,
      stdout: expect.stringMatching(/^Drift found in 1 row of 1 table:\n {2}fig_month_engine: 1 row/),
    });
    expect(await sh(`${verify} --repair`, viaFunction)).toMatch(/^Repaired 1 row of 1 table:/);
    expect(await sh(verify, viaFunction)).toMatch(/^No drift: /);

    // The embedded store is one backend for every connection: from here on it acts as the service role.
    if (db.lite) await db.lite.exec('SET ROLE geo_reader');
    const auth = { authorization: `Bearer ${demoKey}` };
    const me = await http('IdentityFn', 'GET', '/api/v1/me', auth, '', demoStage);
    expect(me.status).toBe(200);
    expect(me.json()).toMatchObject({ workspace: { slug: 'acme' } });
    const list = await http('IdentityFn', 'GET', '/api/v1/analyses', auth, '', demoStage);
    expect(list.status).toBe(200);
    const collected = (list.json().items as Array<{ slug: string; state: string }>).find((a) => a.state === 'collected');
    expect(collected).toBeDefined();
    const figures = await http('FiguresFn', 'GET', `/api/v1/analyses/${collected!.slug}/metrics`, auth, '', demoStage);
    expect(figures.status).toBe(200);
    expect(figures.json().context).toMatchObject({ state: 'measured' });
    // Through this stage's own stand-ins: the reads logged in at its proxy, the load at its cluster.
    expect(fronts.proxy.events.filter((e) => e.outcome === 'ok').length).toBeGreaterThan(0);
    expect(fronts.cluster.events.filter((e) => e.outcome === 'ok').length).toBeGreaterThanOrEqual(3);
  }, 600_000);

  test("the bundles ran with their template's environment, Lambda's own variables and only the stand-ins' additions, which docs/operating.md names", async () => {
    expect([...new Set(invocations.map((i) => BUNDLES.find((b) => i.fn.startsWith(b))))].sort()).toEqual([...BUNDLES].sort());
    for (const name of BUNDLES) {
      const fn = byName(name);
      const env = environmentOf(fn);
      for (const [k, v] of Object.entries(fn.environment)) {
        if (typeof v !== 'string') expect(typeof env[k]).toBe('string');
        else if (RUNTIME_FILES.includes(v)) expect(env[k]).toBe(certs.caFile);
        else if (!v.includes('{{resolve:')) expect([k, env[k]]).toEqual([k, v]);
      }
      const added = Object.keys(env).filter((k) => !(k in fn.environment) && !LAMBDA_DEFINED.includes(k));
      const expected = [
        'AWS_ENDPOINT_URL_DYNAMODB',
        'AWS_ENDPOINT_URL_SECRETS_MANAGER',
        ...(fn.stack === STATELESS && env.DB_HOST ? ['NODE_EXTRA_CA_CERTS'] : []),
      ];
      expect([name, added.sort()]).toEqual([name, expected.sort()]);
    }
    const page = await readFile(join(ROOT, OPERATING_PAGE), 'utf8');
    const rehearsed = page.slice(page.indexOf('## Rehearsed here'), page.indexOf('What cannot run here'));
    for (const name of [...STAND_IN_ADDITIONS, ...RUNTIME_FILES]) expect(rehearsed).toContain(name);
  });

  test('every call spent the budget in DynamoDB (dynalite), each request signed with the role credentials as DynamoDB checks it', async () => {
    expect(budgetFront.refused).toEqual([]);
    expect(budgetFront.verified).toBeGreaterThanOrEqual(4);
    // Made by the AWS SDK's DynamoDB client the bundles carry, and no other client.
    expect(budgetFront.userAgents.filter((ua) => !/aws-sdk-js\/3\.\d+/.test(ua) || !/api\/dynamodb/.test(ua))).toEqual([]);
    const { DynamoDBClient, ScanCommand } = await import('@aws-sdk/client-dynamodb');
    const client = new DynamoDBClient({
      endpoint: budget.endpoint,
      region: REGION,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    try {
      const items = (await client.send(new ScanCommand({ TableName: budgetTable }))).Items ?? [];
      const calls = items.reduce((n, i) => n + Number(i.calls?.N ?? 0), 0);
      expect(calls).toBeGreaterThanOrEqual(4);
    } finally {
      client.destroy();
    }
  });
});
