import * as z from 'zod';
import { type BaseConfig, parseBaseConfig } from './base.js';

const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
/** In MCP_ALLOWED_ORIGINS: any origin on the loopback interface (the user's own machine). */
const LOOPBACK = 'loopback';
const int = (min: number) => z.coerce.number().int().min(min);

/**
 * What a keyed function (a read family, MCP) reads from its environment. Local and deployed differ only
 * here: DATABASE_URL locally, DB_HOST + IAM auth behind RDS Proxy.
 */
const schema = z.object({
  DATABASE_URL: z.string().optional(),
  DB_HOST: z.string().optional(),
  /**
   * The writer's host, when DB_HOST (or DATABASE_URL) is a read-only endpoint (Aurora readers behind the
   * proxy's read-only endpoint): the key's last_used_at stamp goes there, on a pool of one connection
   * with the same port, database, user and authentication. Unset: the caller statement keeps the stamp
   * itself where the session may write, and skips it where it may not.
   */
  DB_WRITER_HOST: z.string().min(1).optional(),
  DB_PORT: int(1).default(5432),
  DB_NAME: z.string().default('geo'),
  DB_USER: z.string().default('geo_reader'),
  DB_IAM_AUTH: bool.default(false),
  DB_SSL: bool.default(false),
  DB_POOL_MAX: int(1).default(2),
  /** How long to wait for a connection; a paused Aurora takes ~20 s to wake, see lib/ for the bound. */
  DB_CONNECT_TIMEOUT_MS: int(100).default(5000),
  /** Server-side statement_timeout: a hung query is cancelled by the database itself. */
  DB_STATEMENT_TIMEOUT_MS: int(100).default(5000),
  /**
   * Send statement_timeout in the connection's startup packet. false behind RDS Proxy, which refuses that
   * parameter (and would pin a session that SETs it); the proxy sets it on its database connections.
   */
  DB_SEND_STATEMENT_TIMEOUT: bool.default(true),

  BUDGET_TABLE: z.string().default('geo-budget'),
  DYNAMODB_ENDPOINT: z.string().optional(),
  /** The AWS SDKs' endpoint overrides, honoured the same way (the deployment rehearsal's stand-ins use them). */
  AWS_ENDPOINT_URL_DYNAMODB: z.string().optional(),
  AWS_ENDPOINT_URL: z.string().optional(),
  AWS_REGION: z.string().default('us-east-1'),
  // The function role's credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, as
  // Lambda puts them in the environment) are read by the AWS SDK's environment provider, not here.
  BUDGET_TIMEOUT_MS: int(50).default(1000),
  /** Optional JSON map plan_key -> calls per minute, overriding the plans table (operator escape hatch). */
  PLAN_CEILINGS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (!v) return undefined;
      const parsed = z.record(z.string(), z.number().int().min(0)).safeParse(JSON.parse(v));
      if (!parsed.success) {
        ctx.addIssue({ code: 'custom', message: 'PLAN_CEILINGS must map plan keys to integers' });
        return z.NEVER;
      }
      return parsed.data;
    }),

  /** HMAC key for pagination cursors. */
  CURSOR_SECRET: z.string().min(32),
  /** Stamp key.last_used_at at most this often per key (seconds); 0 disables the stamp. */
  LAST_USED_THROTTLE_SECONDS: int(0).default(60),
  /**
   * Web origins allowed to call /mcp: a comma-separated list of origins (`https://app.example.com`)
   * and the word `loopback` (http or https on localhost, 127.0.0.1 or [::1], any port); default
   * `loopback`; empty: none. A request without Origin (servers, CLIs, desktop bridges) is not
   * concerned; one with an Origin not allowed is refused 403 origin_not_allowed (DNS rebinding).
   */
  MCP_ALLOWED_ORIGINS: z
    .string()
    .default(LOOPBACK)
    .transform((v, ctx) => {
      const allowed = { origins: new Set<string>() as ReadonlySet<string>, loopback: false };
      for (const item of v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')) {
        if (item === LOOPBACK) {
          allowed.loopback = true;
          continue;
        }
        const u = URL.canParse(item) ? new URL(item) : undefined;
        if (!u || !['http:', 'https:'].includes(u.protocol) || u.pathname !== '/' || u.search || u.hash || u.username || u.password) {
          ctx.addIssue({
            code: 'custom',
            message: `MCP_ALLOWED_ORIGINS: "${item}" is neither an origin (http(s)://host[:port], nothing after) nor ${LOOPBACK}`,
          });
          return z.NEVER;
        }
        (allowed.origins as Set<string>).add(u.origin);
      }
      return allowed;
    }),
});

export type Config = z.infer<typeof schema> & BaseConfig;

export function parseConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Parsed once per process: zod's compiled fast path for an object schema pays off over repeated
  // parses, and its compilation is most of what a first parse costs, inside every cold start.
  const parsed = schema.safeParse(env, { jitless: true });
  if (!parsed.success) {
    throw new Error(`invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  if (!parsed.data.DATABASE_URL && !parsed.data.DB_HOST) {
    throw new Error('invalid configuration: DATABASE_URL or DB_HOST is required');
  }
  return { ...parsed.data, ...parseBaseConfig(env) };
}

let cached: Config | undefined;
/** The configuration of this process, parsed on first use (module scope, once per cold start). */
export function config(): Config {
  cached ??= parseConfig();
  return cached;
}
