import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { type Resources, resources, type Synthesized, synth } from './support.js';

type Env = Record<string, unknown>;
const env = (fn: Resources[string]) => ((fn.Properties!.Environment as { Variables: Env } | undefined)?.Variables ?? {}) as Env;

describe('service functions', () => {
  let s: Synthesized;
  let stateless: Resources;
  let isolatedSubnetIds: string[];

  beforeAll(() => {
    s = synth({}, { account: '111111111111', region: 'eu-west-1' });
    stateless = resources(s.statelessTemplate, 'AWS::Lambda::Function');
    isolatedSubnetIds = s.stateful.network.vpc.isolatedSubnets.map((sn) => s.stateful.resolve(sn.subnetId).Ref as string);
  });

  it('every function that reaches the store or the budget, the migration runner included, sits in the isolated subnets', () => {
    expect(isolatedSubnetIds).toHaveLength(2);
    const statefulFns = Object.entries(resources(s.statefulTemplate, 'AWS::Lambda::Function')).filter(([id]) =>
      id.startsWith('MigrationRunnerMigrate'),
    );
    expect(statefulFns).toHaveLength(1);
    const inVpc = [...Object.entries(stateless).filter(([id]) => !id.startsWith('OpenapiFn')), ...statefulFns];
    expect(inVpc).toHaveLength(5);
    for (const [, fn] of inVpc) {
      const subnets = JSON.stringify((fn.Properties!.VpcConfig as { SubnetIds: unknown }).SubnetIds);
      for (const id of isolatedSubnetIds) expect(subnets).toContain(id);
    }
  });

  it('the openapi function is outside the VPC: it serves bytes it carries, and needs no path to the proxy', () => {
    const [, openapi] = Object.entries(stateless).find(([id]) => id.startsWith('OpenapiFn'))!;
    expect(openapi.Properties!.VpcConfig).toBeUndefined();
    // Nor the ENI permissions a VPC function's role needs.
    const roleId = (openapi.Properties!.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    const role = resources(s.statelessTemplate, 'AWS::IAM::Role')[roleId]!;
    expect(JSON.stringify(role.Properties!.ManagedPolicyArns)).not.toContain('AWSLambdaVPCAccessExecutionRole');
  });

  it('newest Node.js runtime on ARM64', () => {
    for (const fn of Object.values(stateless)) {
      expect(fn.Properties!.Runtime).toBe('nodejs24.x');
      expect(fn.Properties!.Architectures).toEqual(['arm64']);
    }
  });

  it('timeouts: the worst call answers before the Lambda timeout, which answers before API Gateway gives up', () => {
    const integrations = Object.values(resources(s.statelessTemplate, 'AWS::ApiGatewayV2::Integration'));
    const integrationMs = Math.max(...integrations.map((i) => i.Properties!.TimeoutInMillis as number));
    expect(integrationMs).toBeLessThanOrEqual(30_000);
    for (const [id, fn] of Object.entries(stateless)) {
      const lambdaMs = (fn.Properties!.Timeout as number) * 1000;
      expect(lambdaMs).toBeLessThan(integrationMs);
      if (id.startsWith('OpenapiFn')) continue;
      const e = env(fn);
      // Recomputed from the environment the functions really get (lib/config.ts worstCallMs, docs/operating.md#timeouts).
      const worst =
        2 * Number(e.DB_CONNECT_TIMEOUT_MS) + 2 * (Number(e.DB_STATEMENT_TIMEOUT_MS) + 1000) + Number(e.BUDGET_TIMEOUT_MS) + 2000;
      expect(worst).toBeLessThanOrEqual(lambdaMs);
      // Short enough that a ~15-20 s Aurora wake yields our own 503 rather than a long hang.
      expect(Number(e.DB_CONNECT_TIMEOUT_MS)).toBeLessThan(15_000);
    }
  });

  it("TLS: the service trusts the proxy through Node's own store; only the migration runner needs the RDS CA", () => {
    // RDS Proxy presents an ACM certificate chaining to Amazon Root CA 1, which Node ships; the cluster
    // presents an RDS CA certificate, which Node does not, and Node 20+ Lambda runtimes no longer load it
    // unless NODE_EXTRA_CA_CERTS points at the runtime's bundle.
    const roots = tls.rootCertificates.map((pem) => new X509Certificate(pem).subject);
    expect(roots.some((subject) => /CN=Amazon Root CA 1/.test(subject))).toBe(true);
    expect(roots.some((subject) => /Amazon RDS/.test(subject))).toBe(false);
    for (const [id, fn] of Object.entries(stateless)) {
      expect(fn.Properties!.Runtime).toBe('nodejs24.x');
      if (id.startsWith('OpenapiFn')) continue;
      expect(env(fn)).toMatchObject({ DB_SSL: 'true', DB_SEND_STATEMENT_TIMEOUT: 'false' });
      expect(env(fn).NODE_EXTRA_CA_CERTS).toBeUndefined();
    }
    const [, migrate] = Object.entries(resources(s.statefulTemplate, 'AWS::Lambda::Function')).find(([id]) =>
      id.startsWith('MigrationRunnerMigrate'),
    )!;
    expect(env(migrate).NODE_EXTRA_CA_CERTS).toBe('/var/runtime/ca-cert.pem');
  });

  it('read and MCP functions get the full service configuration', () => {
    for (const [id, fn] of Object.entries(stateless)) {
      if (id.startsWith('OpenapiFn')) continue;
      expect(env(fn)).toMatchObject({
        API_DISABLED: 'false',
        API_DISABLED_RETRY_AFTER: expect.any(String),
        DB_HOST: expect.anything(),
        DB_PORT: '5432',
        DB_NAME: 'geo',
        DB_USER: 'geo_reader',
        DB_IAM_AUTH: 'true',
        DB_SSL: 'true',
        DB_POOL_MAX: expect.any(String),
        BUDGET_TABLE: expect.anything(),
        BUDGET_TIMEOUT_MS: expect.any(String),
        LAST_USED_THROTTLE_SECONDS: expect.any(String),
        LOG_LEVEL: expect.any(String),
      });
      // A dynamic reference, resolved by CloudFormation at deploy time: never the value itself.
      expect(JSON.stringify(env(fn).CURSOR_SECRET)).toContain('{{resolve:secretsmanager:');
    }
  });

  it('the openapi function knows only the api switch: no database, no table, no secret', () => {
    const [, openapi] = Object.entries(stateless).find(([id]) => id.startsWith('OpenapiFn'))!;
    expect(Object.keys(env(openapi)).sort()).toEqual([
      'API_DISABLED',
      'API_DISABLED_RETRY_AFTER',
      'LOG_LEVEL',
      'POWERTOOLS_METRICS_NAMESPACE',
    ]);
  });

  it('cursorSecretVersionId pins the dynamic reference to one version', () => {
    const pinned = synth({ stages: { dev: { cursorSecretVersionId: '0b5a7c1e-3d2f-4a6b-8c9d-0e1f2a3b4c5d' } } });
    for (const [id, fn] of Object.entries(resources(pinned.statelessTemplate, 'AWS::Lambda::Function'))) {
      if (id.startsWith('OpenapiFn')) continue;
      expect(JSON.stringify(env(fn).CURSOR_SECRET)).toContain(':SecretString:::0b5a7c1e-3d2f-4a6b-8c9d-0e1f2a3b4c5d}}');
    }
  });

  it('no function reads source maps at start (they cost a measurable part of a cold start: npm run bench -- bundles)', () => {
    for (const fn of Object.values(stateless)) expect(String(env(fn).NODE_OPTIONS ?? '')).not.toContain('enable-source-maps');
  });

  it('MCP_ALLOWED_ORIGINS reaches the MCP function only, when the stage names origins', () => {
    const named = synth({ stages: { dev: { api: { mcpAllowedOrigins: ['loopback', 'https://app.example.com'] } } } });
    for (const [id, fn] of Object.entries(resources(named.statelessTemplate, 'AWS::Lambda::Function'))) {
      expect(env(fn).MCP_ALLOWED_ORIGINS).toBe(id.startsWith('McpFn') ? 'loopback,https://app.example.com' : undefined);
    }
    for (const fn of Object.values(stateless)) expect(env(fn).MCP_ALLOWED_ORIGINS).toBeUndefined();
    expect(() => synth({ stages: { dev: { api: { mcpAllowedOrigins: ['ftp://x.example.com'] } } } })).toThrow(/mcpAllowedOrigins/);
  });

  it('PLAN_CEILINGS appears only when the stage configures ceilings', () => {
    const withCeilings = synth({ stages: { dev: { planCeilings: { starter: 30, pro: 120 } } } });
    const fns = Object.entries(resources(withCeilings.statelessTemplate, 'AWS::Lambda::Function'));
    for (const [id, fn] of fns) {
      if (id.startsWith('OpenapiFn')) continue;
      expect(env(fn).PLAN_CEILINGS).toBe('{"starter":30,"pro":120}');
    }
    for (const fn of Object.values(stateless)) expect(env(fn).PLAN_CEILINGS).toBeUndefined();
  });
});
