import { z } from 'zod';

/**
 * Per-stage configuration of the deployed service, parsed from CDK context (cdk.json `stages.<name>`,
 * selected by `-c stage=<name>`). Every knob an operator may turn lives here, so nothing about a
 * deployment requires a code edit. The parse is strict: a typo in cdk.json fails synth instead of
 * silently falling back to a default.
 */

const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653] as const;

const id = z.string().min(1);

const createDatabase = z
  .object({
    mode: z.literal('create'),
    /** 0 lets Aurora pause when idle; the API then answers 503 upstream_timeout while it wakes. */
    minCapacity: z.number().min(0).max(256).default(0),
    maxCapacity: z.number().min(1).max(256).default(4),
    /** Aurora PostgreSQL version; pausing at 0 ACU needs 13.15, 14.12, 15.7, 16.3, 17.4 or later. */
    engineVersion: z
      .string()
      .regex(/^1[3-9]\.\d+$/)
      .default('17.6'),
    /**
     * Aurora Serverless v2 reader instances (Aurora allows up to 15). Above 0, the proxy gets a READ_ONLY
     * endpoint and the service reads through it (DB_HOST), keeping the proxy's default endpoint, which
     * reaches the writer, for the last_used_at stamp (DB_WRITER_HOST). The migration runner and the
     * tunnel keep the cluster's writer endpoint.
     */
    readers: z.number().int().min(0).max(15).default(0),
    /** Idle time before a 0-ACU cluster pauses (Aurora accepts 5 minutes to 24 hours). */
    autoPauseMinutes: z.number().int().min(5).max(1440).default(10),
    deletionProtection: z.boolean().default(true),
    backupRetentionDays: z.number().int().min(1).max(35).default(7),
    /** Rotate the admin secret on this schedule; the service itself never uses that secret. */
    adminSecretRotationDays: z.number().int().min(1).max(365).default(30),
    vpcCidr: z
      .string()
      .regex(/^\d+\.\d+\.\d+\.\d+\/\d+$/)
      .default('10.40.0.0/16'),
  })
  .strict()
  .refine((d) => d.minCapacity <= d.maxCapacity, { message: 'minCapacity must not exceed maxCapacity' });

/** For teams whose measurement store already exists: everything needed to reach it, nothing created. */
const importDatabase = z
  .object({
    mode: z.literal('import'),
    vpc: z
      .object({
        vpcId: id,
        vpcCidr: z.string().regex(/^\d+\.\d+\.\d+\.\d+\/\d+$/),
        availabilityZones: z.array(id).min(2),
        /** Private subnets for the proxy and the functions; one per availability zone, same order. */
        subnetIds: z.array(id).min(2),
        routeTableIds: z.array(id).min(2),
        /** false when the VPC already has DynamoDB and Secrets Manager endpoints (a second one would clash). */
        createEndpoints: z.boolean().default(true),
      })
      .strict()
      .refine((v) => v.subnetIds.length === v.availabilityZones.length && v.routeTableIds.length === v.subnetIds.length, {
        message: 'availabilityZones, subnetIds and routeTableIds must align one to one',
      }),
    cluster: z
      .object({
        clusterIdentifier: id,
        /** The cluster-XXXX resource id: the proxy's IAM permission to connect is scoped to it. */
        clusterResourceIdentifier: z.string().regex(/^cluster-[A-Z0-9]+$/),
        endpoint: id,
        port: z.number().int().default(5432),
        securityGroupId: z.string().regex(/^sg-[0-9a-f]+$/),
        adminSecretArn: z.string().startsWith('arn:'),
      })
      .strict(),
  })
  .strict();

/**
 * How long after the server's statement_timeout the client itself gives up on a statement: the pool's
 * query_timeout is dbStatementMs + 1 s (shared/store/db.ts; test/infra/config.test.ts checks they agree).
 */
export const CLIENT_STATEMENT_GRACE_MS = 1_000;
/** Left inside the Lambda timeout for the response write, logging and what remains of cold-start work. */
export const CALL_MARGIN_MS = 2_000;

export interface TimeoutSettings {
  integrationSeconds: number;
  lambdaSeconds: number;
  dbConnectMs: number;
  dbStatementMs: number;
  budgetMs: number;
}

/**
 * The longest one call can take before the function answers, term by term. The worst path: the
 * caller statement needs a fresh connection (cold pool, or its connection was dropped) and so does the
 * data statement (its connection dropped meanwhile): two connection attempts, each bounded by
 * dbConnectMs; the caller statement and one data statement (every read is a single statement), each
 * bounded client-side by dbStatementMs + the grace; the budget UpdateItem, whose request timeout runs
 * from the start of the request and so bounds its connection too; and the margin.
 */
export function worstCallMs(t: TimeoutSettings): { total: number; terms: Record<string, number> } {
  const terms = {
    connections: 2 * t.dbConnectMs,
    identityStatement: t.dbStatementMs + CLIENT_STATEMENT_GRACE_MS,
    budgetCall: t.budgetMs,
    dataStatement: t.dbStatementMs + CLIENT_STATEMENT_GRACE_MS,
    margin: CALL_MARGIN_MS,
  };
  return { total: Object.values(terms).reduce((a, b) => a + b, 0), terms };
}

/**
 * Domains that can never receive mail: reserved for documentation and testing (RFC 2606, RFC 6761), plus
 * localhost. example.com, .net and .org are IANA's; .test, .example, .invalid and .localhost are TLDs no
 * one can register.
 */
const RESERVED_DOMAINS = /(^|\.)(example\.(com|net|org)|example|test|invalid|localhost)$/;
/** Local parts that say "fill me in", or name a mailbox nobody reads. */
const PLACEHOLDER_LOCAL_PARTS =
  /^(change[-_.]?me|replace[-_.]?me|placeholder|todo|tbd|fixme|x{3,}|you|your[-_.]?(e-?mail|address|name|team)|nobody|no[-_.]?reply)$/;

/** Why an alarm address is a placeholder rather than a mailbox; undefined when it looks like a real one. */
export function placeholderReason(address: string): string | undefined {
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at).toLowerCase();
  const domain = address.slice(at + 1).toLowerCase();
  if (RESERVED_DOMAINS.test(domain)) return `${domain} is reserved for examples and tests and receives no mail`;
  if (PLACEHOLDER_LOCAL_PARTS.test(local)) return `"${local}" is a placeholder, not a mailbox`;
  return undefined;
}

const alarmAddress = z.string().superRefine((v, ctx) => {
  const trimmed = v.trim();
  if (trimmed === '') {
    ctx.addIssue({ code: 'custom', message: "empty: name the address that receives this stage's alarms, or remove the key" });
    return;
  }
  if (!z.email().safeParse(trimmed).success || trimmed !== v) {
    ctx.addIssue({ code: 'custom', message: `"${v}" is not an e-mail address` });
    return;
  }
  const reason = placeholderReason(v);
  if (reason) {
    ctx.addIssue({
      code: 'custom',
      message: `${v} is a placeholder (${reason}): alarms sent there reach nobody. Name a real address (cdk.json stages.<stage>.alarmEmail, or -c alarmEmail=...)`,
    });
  }
});

const timeouts = z
  .object({
    /** API Gateway HTTP API integration timeout; AWS caps it at 30 s. */
    integrationSeconds: z.number().int().min(1).max(30).default(29),
    lambdaSeconds: z.number().int().min(1).max(29).default(27),
    /** Per connection attempt. Below Aurora's ~15-20 s resume on purpose: the caller gets 503 upstream_timeout and retries warm. */
    dbConnectMs: z.number().int().min(100).default(6_000),
    /** Server-side statement_timeout (set by the proxy); the client waits 1 s longer. */
    dbStatementMs: z.number().int().min(100).default(4_000),
    budgetMs: z.number().int().min(50).default(1_000),
  })
  .strict()
  // If the worst path outlasts the Lambda timeout, the function is killed without writing its 503
  // upstream_timeout body; if the Lambda timeout reaches the integration timeout, the caller gets API
  // Gateway's own bare 503 instead of ours. docs/operating.md#timeouts shows the arithmetic.
  .superRefine((t, ctx) => {
    const { total, terms } = worstCallMs(t);
    if (total > t.lambdaSeconds * 1000) {
      const sum = Object.entries(terms)
        .map(([k, v]) => `${k} ${v}`)
        .join(' + ');
      ctx.addIssue({
        code: 'custom',
        message: `the worst call (${sum} = ${total} ms) must fit in lambdaSeconds (${t.lambdaSeconds * 1000} ms)`,
      });
    }
    if (t.lambdaSeconds >= t.integrationSeconds) {
      ctx.addIssue({
        code: 'custom',
        message: `lambdaSeconds (${t.lambdaSeconds}) must be below integrationSeconds (${t.integrationSeconds})`,
      });
    }
  });

export const stageConfigSchema = z
  .object({
    account: z
      .string()
      .regex(/^\d{12}$/)
      .optional(),
    region: z
      .string()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d$/)
      .optional(),
    /**
     * Two zones of the region for a VPC this app creates. Absent: the zones the account really has in the
     * region, looked up by the CDK CLI on the first synth with credentials and kept in cdk.context.json
     * (commit it: the subnets must not move between deployments). `<region>a`/`b` is not assumed: it does
     * not exist in every account.
     */
    availabilityZones: z
      .array(z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d[a-z]$/))
      .length(2)
      .optional(),
    api: z
      .object({
        /** The switch: false makes every route answer 503 api_disabled, by configuration only. */
        enabled: z.boolean().default(true),
        retryAfterSeconds: z.number().int().min(1).max(86_400).default(300),
        /** Stage-wide backstop, far above any plan's per-key budget: it guards the account, not the key. */
        throttleRatePerSecond: z.number().int().min(1).default(200),
        throttleBurst: z.number().int().min(1).default(400),
        /**
         * Web origins allowed to call /mcp (MCP_ALLOWED_ORIGINS): origins such as https://app.example.com,
         * and `loopback` for localhost on any port. Absent: loopback only. Calls without Origin (servers,
         * command-line and desktop clients) are not concerned.
         */
        mcpAllowedOrigins: z.array(z.union([z.literal('loopback'), z.url({ protocol: /^https?$/ })])).optional(),
      })
      .strict()
      .prefault({}),
    /**
     * Source of the per-minute ceilings. Absent: the plans table of the measurement store (the normal
     * case). Present: this map, plan key -> calls per minute, overrides it (PLAN_CEILINGS).
     */
    /**
     * Opt-in edge in front of the HTTP API (lib/constructs/edge-distribution.ts): a CloudFront
     * distribution with a WAF web ACL whose rate-based rule counts requests per client address, so one
     * address flooding the API (with bad keys, say) is refused at the edge instead of spending the stage
     * throttle every tenant shares. The web ACL lives in a stack of its own in us-east-1, where CloudFront
     * web ACLs must be created (docs/operating.md#edge-protection).
     */
    edge: z
      .object({
        enabled: z.boolean().default(false),
        /** Requests one client address may make per window before WAF answers 429 (WAF accepts 10 and up). */
        ratePerAddress: z.number().int().min(10).max(2_000_000_000).default(1_200),
        /** The window WAF counts over, in seconds (the values WAF accepts). */
        rateWindowSeconds: z.union([z.literal(60), z.literal(120), z.literal(300), z.literal(600)]).default(60),
        /** AWS managed rule groups: Amazon IP reputation list and known bad inputs. */
        managedRules: z.boolean().default(true),
      })
      .strict()
      .prefault({}),
    planCeilings: z.record(z.string().min(1), z.number().int().min(0)).optional(),
    /**
     * Pins CURSOR_SECRET to one version of the secret. Changing it is how a rotation reaches the
     * functions: CloudFormation resolves the dynamic reference again only when the reference changes.
     */
    cursorSecretVersionId: z.string().min(32).max(64).optional(),
    domain: z
      .object({ name: z.string().regex(/^[a-z0-9.-]+\.[a-z]{2,}$/), certificateArn: z.string().startsWith('arn:') })
      .strict()
      .optional(),
    database: z.discriminatedUnion('mode', [createDatabase, importDatabase]).prefault({ mode: 'create' }),
    /**
     * A small instance managed by AWS Systems Manager, for port forwarding to the cluster endpoint
     * (docs/operating.md#reaching-the-database-through-a-tunnel). No inbound rule; the cluster admits it on its port.
     * Off by default: it and its Session Manager endpoints cost by the hour, so turn it on when needed.
     */
    bastion: z.boolean().default(false),
    /** Name of the database inside the cluster. */
    databaseName: z
      .string()
      .regex(/^[a-z_][a-z0-9_]*$/)
      .default('geo'),
    logRetentionDays: z
      .number()
      .int()
      .refine((d) => (RETENTION_DAYS as readonly number[]).includes(d), { message: `one of ${RETENTION_DAYS.join(', ')}` })
      .default(30),
    logLevel: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('INFO'),
    /**
     * Where the alarms go (an encrypted SNS topic with this e-mail subscription). Optional, but when it is
     * set it must be an address someone reads: a placeholder refuses to synthesize (placeholderReason).
     * `-c alarmEmail=...` overrides it from the command line or a pipeline.
     */
    alarmEmail: alarmAddress.optional(),
    /**
     * Active X-Ray tracing on every function of the stage, with the service's spans of the caller
     * statement, the budget call and the read's statement (shared/store/trace.ts). `-c tracing=false`
     * overrides it from the command line.
     */
    tracing: z.boolean().default(true),
    /** The stage's CloudWatch dashboard (lib/constructs/service-dashboard.ts). `-c dashboard=false` overrides it. */
    dashboard: z.boolean().default(true),
    alarms: z
      .object({
        serverErrorRatePercent: z.number().min(0).max(100).default(5),
        p95LatencyMs: z.number().int().min(1).default(5_000),
        throttles: z.number().int().min(1).default(1),
        budgetStoreErrors: z.number().int().min(1).default(1),
        /** One per Aurora wake is expected; only a run of them means the store is really down. */
        upstreamTimeouts: z.number().int().min(1).default(5),
      })
      .strict()
      .prefault({}),
    timeouts: timeouts.prefault({}),
    lambda: z
      .object({
        memoryMb: z.number().int().min(128).max(10_240).default(512),
        dbPoolMax: z.number().int().min(1).max(10).default(2),
        lastUsedThrottleSeconds: z.number().int().min(0).default(60),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .refine((c) => !c.region || !c.availabilityZones || c.availabilityZones.every((z) => z.slice(0, -1) === c.region), {
    message: 'availabilityZones must be zones of the stage region (e.g. eu-west-1a for eu-west-1)',
    path: ['availabilityZones'],
  });

export type StageInput = z.input<typeof stageConfigSchema>;
export type StageSettings = z.output<typeof stageConfigSchema>;
export interface StageConfig extends StageSettings {
  stageName: string;
}
export type CreateDatabaseConfig = Extract<StageSettings['database'], { mode: 'create' }>;
export type ImportDatabaseConfig = Extract<StageSettings['database'], { mode: 'import' }>;

/**
 * A stage configuration that cannot be deployed as it stands. Its message is one line naming the key to
 * change (cdk.json `stages.<stage>...` or a `-c` context key): bin/app.ts prints it alone, without a stack.
 */
export class StageConfigError extends Error {
  override readonly name = 'StageConfigError';
}

/** What the app reads from context; tryGetContext is typed loosely, so this is the only entry. */
export interface ContextReader {
  tryGetContext(key: string): unknown;
}

const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

/** A true/false context key given with `-c`, or undefined when it is not given. */
function contextFlag(ctx: ContextReader, key: string): boolean | undefined {
  const value = ctx.tryGetContext(key);
  if (value === undefined) return undefined;
  const parsed = flag.safeParse(value);
  if (!parsed.success) throw new StageConfigError(`-c ${key} must be true or false, not ${JSON.stringify(value)}`);
  return parsed.data;
}

/**
 * Reads the selected stage from context. `-c apiEnabled=false` overrides the stage's api.enabled so the
 * switch can be flipped from the command line (or a pipeline variable) without editing cdk.json;
 * `-c alarmEmail=...` likewise sets the stage's alarm address, and `-c tracing=...`, `-c dashboard=...`
 * the observability switches.
 */
export function loadStageConfig(ctx: ContextReader): StageConfig {
  const stage = ctx.tryGetContext('stage') ?? 'dev';
  if (typeof stage !== 'string' || !/^[a-z][a-z0-9-]{0,19}$/.test(stage))
    throw new StageConfigError(`-c stage must be lowercase letters, digits and dashes (at most 20), not ${JSON.stringify(stage)}`);
  const stageName = stage;
  const stages = z.record(z.string(), z.unknown()).parse(ctx.tryGetContext('stages') ?? {});
  const raw = stages[stageName];
  if (raw === undefined) throw new StageConfigError(`no configuration for stage "${stageName}" in context "stages"`);
  // A pipeline can supply the alarm address without editing cdk.json; it is validated like the file's.
  const alarmEmail = ctx.tryGetContext('alarmEmail');
  const input = alarmEmail === undefined ? raw : { ...z.record(z.string(), z.unknown()).parse(raw), alarmEmail };
  const parsed = stageConfigSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new StageConfigError(
      `invalid configuration for stage "${stageName}": ${issues.replaceAll('stages.<stage>.', `stages.${stageName}.`)}`,
    );
  }
  const config: StageConfig = { ...parsed.data, stageName };
  const apiEnabled = contextFlag(ctx, 'apiEnabled');
  if (apiEnabled !== undefined) config.api = { ...config.api, enabled: apiEnabled };
  // Observability switches from the command line or a pipeline, like the api switch.
  config.tracing = contextFlag(ctx, 'tracing') ?? config.tracing;
  config.dashboard = contextFlag(ctx, 'dashboard') ?? config.dashboard;
  return config;
}

/** `-c bundle=false` (tests) replaces esbuild bundles with an inline stub; synth and deploy bundle. */
export function shouldBundle(ctx: ContextReader): boolean {
  const v = ctx.tryGetContext('bundle');
  return v === undefined ? true : flag.parse(v);
}
