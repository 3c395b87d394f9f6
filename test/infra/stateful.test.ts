import { beforeAll, describe, expect, it } from '@jest/globals';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { parseConfig } from '#shared/config/service.js';
import { createPool } from '#shared/store/db.js';
import { importStage, PROD, resources, synth } from './support.js';

describe('stateful stack (created store)', () => {
  let t: Template;
  beforeAll(() => {
    t = synth({}, { account: '111111111111', region: 'eu-west-1' }).statefulTemplate;
  });

  it('budget table: on-demand, pk string, TTL on expires_at, PITR, encrypted', () => {
    t.resourceCountIs('AWS::DynamoDB::Table', 1);
    t.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('proxy requires TLS and IAM end to end, and its role may connect as geo_reader only', () => {
    t.hasResourceProperties('AWS::RDS::DBProxy', { RequireTLS: true, DefaultAuthScheme: 'IAM_AUTH', EngineFamily: 'POSTGRESQL' });
    const proxy = Object.values(resources(t, 'AWS::RDS::DBProxy'))[0]!;
    expect(proxy.Properties!.Auth).toBeUndefined();
    const roleId = (proxy.Properties!.RoleArn as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    const policies = Object.values(resources(t, 'AWS::IAM::Policy')).filter((p) =>
      (p.Properties!.Roles as Array<{ Ref: string }>).some((r) => r.Ref === roleId),
    );
    const statements = policies.flatMap((p) => (p.Properties!.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement);
    expect(statements).toHaveLength(1);
    expect(statements[0]!.Action).toBe('rds-db:connect');
    expect(JSON.stringify(statements[0]!.Resource)).toMatch(/dbuser:.*\/geo_reader"/);
  });

  it('Aurora Serverless v2 may pause at 0 ACU, encrypted, IAM auth on', () => {
    t.hasResourceProperties('AWS::RDS::DBCluster', {
      Engine: 'aurora-postgresql',
      ServerlessV2ScalingConfiguration: { MinCapacity: 0, MaxCapacity: Match.anyValue(), SecondsUntilAutoPause: Match.anyValue() },
      StorageEncrypted: true,
      EnableIAMDatabaseAuthentication: true,
    });
    t.hasResourceProperties('AWS::RDS::DBInstance', { DBInstanceClass: 'db.serverless' });
  });

  it('network: isolated subnets only, no NAT or Internet gateway, DynamoDB and Secrets Manager endpoints', () => {
    t.resourceCountIs('AWS::EC2::NatGateway', 0);
    t.resourceCountIs('AWS::EC2::InternetGateway', 0);
    for (const subnet of Object.values(resources(t, 'AWS::EC2::Subnet'))) {
      expect(subnet.Properties!.MapPublicIpOnLaunch).toBe(false);
    }
    t.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      VpcEndpointType: 'Gateway',
      ServiceName: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith(['.dynamodb'])]) }),
    });
    t.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      VpcEndpointType: 'Interface',
      ServiceName: 'com.amazonaws.eu-west-1.secretsmanager',
      PrivateDnsEnabled: true,
    });
  });

  it('runs the migrations as a custom resource that re-runs when the SQL changes', () => {
    t.hasResourceProperties('Custom::MeasurementStoreSchema', { SchemaHash: Match.stringLikeRegexp('^[0-9a-f]{64}$') });
    t.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ READER_DB_USER: 'geo_reader', NODE_EXTRA_CA_CERTS: '/var/runtime/ca-cert.pem' }) },
    });
  });

  it('the admin secret is not rotated at creation: the migration runner logs in with it during the same deployment', () => {
    t.hasResourceProperties('AWS::SecretsManager::RotationSchedule', {
      RotateImmediatelyOnUpdate: false,
      RotationRules: { ScheduleExpression: 'rate(30 days)' },
    });
  });

  it('the rotation schedule waits for the writer instance: Secrets Manager tests the rotation function when the schedule is created', () => {
    // Creating the schedule invokes the rotation function at once (its testSecret step logs in), even
    // with RotateImmediatelyOnUpdate false; before the writer exists nothing accepts that login and the
    // stack rolls back. The cluster resource alone is not enough: the instance is what serves logins.
    const json = t.toJSON() as { Resources: Record<string, { Type: string; DependsOn?: string[] }> };
    const [writer] = Object.keys(resources(t, 'AWS::RDS::DBInstance'));
    const schedules = Object.values(json.Resources).filter((r) => r.Type === 'AWS::SecretsManager::RotationSchedule');
    expect(writer).toBeDefined();
    expect(schedules).toHaveLength(1);
    expect(schedules[0]!.DependsOn ?? []).toContain(writer);
  });

  it('proxy: closes idle database connections (Aurora may pause) and sets the statement timeout itself', () => {
    t.hasResourceProperties('AWS::RDS::DBProxyTargetGroup', {
      ConnectionPoolConfigurationInfo: Match.objectLike({
        MaxIdleConnectionsPercent: 0,
        InitQuery: 'SET statement_timeout = 4000',
      }),
    });
    const custom = synth({ stages: { dev: { timeouts: { dbStatementMs: 2500 } } } }, { account: '111111111111', region: 'eu-west-1' });
    custom.statefulTemplate.hasResourceProperties('AWS::RDS::DBProxyTargetGroup', {
      ConnectionPoolConfigurationInfo: Match.objectLike({ InitQuery: 'SET statement_timeout = 2500' }),
    });
  });

  it('proxy pool: every setting pinned (borrow = Lambda timeout, all connections, none idle, client idle 30 min)', async () => {
    const pool = Object.values(resources(t, 'AWS::RDS::DBProxyTargetGroup'))[0]!.Properties!.ConnectionPoolConfigurationInfo;
    expect(pool).toEqual({
      ConnectionBorrowTimeout: 27,
      MaxConnectionsPercent: 100,
      MaxIdleConnectionsPercent: 0,
      InitQuery: 'SET statement_timeout = 4000',
    });
    t.hasResourceProperties('AWS::RDS::DBProxy', { IdleClientTimeout: 1800 });
    // The borrow timeout follows the Lambda timeout: nobody waits for a connection longer than that.
    const custom = synth(
      { stages: { dev: { timeouts: { lambdaSeconds: 20, dbConnectMs: 3000 } } } },
      { account: '111111111111', region: 'eu-west-1' },
    );
    custom.statefulTemplate.hasResourceProperties('AWS::RDS::DBProxyTargetGroup', {
      ConnectionPoolConfigurationInfo: Match.objectLike({ ConnectionBorrowTimeout: 20 }),
    });
    // A running function closes its own idle connections first (the pool's idleTimeoutMillis), so the
    // proxy's idle-client close only ever meets connections of frozen or retired execution environments.
    const fnPool = createPool(parseConfig({ DB_HOST: 'proxy.example', CURSOR_SECRET: 'x'.repeat(32) }));
    try {
      const idleMs = (fnPool as unknown as { options: { idleTimeoutMillis: number } }).options.idleTimeoutMillis;
      expect(idleMs).toBeLessThan(1800 * 1000);
    } finally {
      await fnPool.end();
    }
  });

  it("outputs the writer instance's identifier: the dimension of its ServerlessDatabaseCapacity (docs/operating.md, what to watch)", () => {
    const [writer] = Object.keys(resources(t, 'AWS::RDS::DBInstance'));
    t.hasOutput('WriterInstanceId', { Value: { Ref: writer } });
  });

  it('cursor secret is generated, never written in the template', () => {
    t.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: 64 }),
    });
  });
});

/**
 * What the rollback runbook's restore relies on (docs/runbook-rollback.md, "Restoring the store from a
 * snapshot"), which only AWS can rehearse: point-in-time backups for the configured days, a final
 * snapshot when the cluster is deleted or replaced, deletion protection on prod, and IAM authentication,
 * which the restored cluster is created with too.
 */
describe('the store a restore starts from', () => {
  const cluster = (context: Record<string, unknown>) => {
    const t = synth(context, { account: '111111111111', region: 'eu-west-1' }).statefulTemplate;
    const clusters = Object.values(resources(t, 'AWS::RDS::DBCluster'));
    expect(clusters).toHaveLength(1);
    return clusters[0] as (typeof clusters)[0] & { DeletionPolicy?: string; UpdateReplacePolicy?: string };
  };

  it.each([
    ['dev', 7, false, {}],
    ['prod', 14, true, PROD],
  ])(
    '%s: backups kept %i days, a final snapshot on deletion or replacement, deletion protection %s',
    (_stage, days, protectedStore, context) => {
      const c = cluster(context);
      expect({
        retention: c.Properties!.BackupRetentionPeriod,
        deletionProtection: c.Properties!.DeletionProtection,
        iam: c.Properties!.EnableIAMDatabaseAuthentication,
        deletion: c.DeletionPolicy,
        replacement: c.UpdateReplacePolicy,
      }).toEqual({ retention: days, deletionProtection: protectedStore, iam: true, deletion: 'Snapshot', replacement: 'Snapshot' });
    },
  );
});

describe('stateful stack (imported store)', () => {
  let t: Template;
  beforeAll(() => {
    t = synth({ stage: 'dev', stages: { dev: importStage } }, { account: '111111111111', region: 'eu-west-1' }).statefulTemplate;
  });

  it('creates no cluster and no VPC, but still a TLS + IAM proxy on the imported cluster', () => {
    t.resourceCountIs('AWS::RDS::DBCluster', 0);
    t.resourceCountIs('AWS::EC2::VPC', 0);
    t.hasResourceProperties('AWS::RDS::DBProxy', {
      RequireTLS: true,
      DefaultAuthScheme: 'IAM_AUTH',
      VpcSubnetIds: ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb'],
    });
    t.hasResourceProperties('AWS::RDS::DBProxyTargetGroup', { DBClusterIdentifiers: ['existing-measurements'] });
    t.hasResourceProperties('AWS::EC2::SecurityGroupIngress', { GroupId: 'sg-0123456789abcdef0', FromPort: 5432 });
    t.hasResourceProperties('AWS::RDS::DBProxyTargetGroup', {
      ConnectionPoolConfigurationInfo: Match.objectLike({ MaxIdleConnectionsPercent: 0, InitQuery: 'SET statement_timeout = 4000' }),
    });
    // The writer of an imported cluster is not this stack's to name.
    expect(Object.keys(t.toJSON().Outputs)).not.toContain('WriterInstanceId');
  });
});

describe('availability zones of a created VPC', () => {
  const zonesOf = (t: Template) =>
    Object.values(resources(t, 'AWS::EC2::Subnet'))
      .map((sn) => sn.Properties!.AvailabilityZone)
      .sort();

  it('named by the stage configuration when it names them', () => {
    const s = synth(
      { stages: { dev: { region: 'us-east-1', availabilityZones: ['us-east-1c', 'us-east-1f'] } } },
      { account: '222222222222' },
    );
    expect(zonesOf(s.statefulTemplate)).toEqual(['us-east-1c', 'us-east-1f']);
  });

  it('otherwise the zones the account really has, from the CDK lookup kept in context (cdk.context.json)', () => {
    const s = synth(
      { 'availability-zones:account=222222222222:region=us-east-1': ['us-east-1b', 'us-east-1d', 'us-east-1e'] },
      { account: '222222222222', region: 'us-east-1' },
    );
    expect(zonesOf(s.statefulTemplate)).toEqual(['us-east-1b', 'us-east-1d']);
  });

  it('with no answer yet, synth asks the CLI for the lookup instead of assuming <region>a/b', () => {
    const s = synth({}, { account: '333333333333', region: 'ap-southeast-2' });
    const zones = zonesOf(s.statefulTemplate);
    expect(zones).not.toContain('ap-southeast-2a');
    const missing = s.app.synth().manifest.missing ?? [];
    expect(missing.map((m) => m.key)).toContain('availability-zones:account=333333333333:region=ap-southeast-2');
  });

  it('the offline synth (dummy account 111111111111, eu-west-1) has its answer in cdk.json, so it needs no AWS call', () => {
    const s = synth({}, { account: '111111111111', region: 'eu-west-1' });
    expect(zonesOf(s.statefulTemplate)).toEqual(['eu-west-1a', 'eu-west-1b']);
    expect(s.app.synth().manifest.missing ?? []).toEqual([]);
  });

  it('refuses zones of another region, with the reason', () => {
    expect(() => synth({ stages: { dev: { region: 'eu-west-1', availabilityZones: ['us-east-1a', 'us-east-1b'] } } })).toThrow(
      /availabilityZones: availabilityZones must be zones of the stage region/,
    );
  });
});
