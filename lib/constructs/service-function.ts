import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Duration, Validations } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** Repository root: NodejsFunction needs it (and package-lock.json there) to resolve entries and deps. */
export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Imported by shared/store/trace.ts only where tracing is on; shipped as a file of its own. */
const TRACER_MODULE = '@aws-lambda-powertools/tracer';

/** Powertools' tracer as one minified ESM file at node_modules/<its name>/ of the asset, as Node resolves it from the bundle. */
function tracerBundle(inputDir: string, outputDir: string): string[] {
  const dir = `${outputDir}/node_modules/${TRACER_MODULE}`;
  return [
    `mkdir -p "${dir}"`,
    `"${inputDir}/node_modules/.bin/esbuild" "${inputDir}/node_modules/${TRACER_MODULE}/lib/esm/index.js" --bundle --platform=node --format=esm --target=node24 --minify --main-fields=module,main --log-level=error "--banner:js=import { createRequire } from 'module'; const require = createRequire(import.meta.url);" --outfile="${dir}/index.mjs"`,
    `echo '{"name":"${TRACER_MODULE}","type":"module","exports":"./index.mjs"}' > "${dir}/package.json"`,
  ];
}

/** The newest Node.js runtime aws-cdk-lib offers; ARM64 for the lower price per GB-second. */
export const RUNTIME = lambda.Runtime.NODEJS_24_X;

export interface ServiceFunctionProps {
  /** Entry file relative to the repository root, e.g. functions/figures/handler.ts. */
  entry: string;
  description: string;
  environment: Record<string, string>;
  timeout: Duration;
  memorySize: number;
  logRetentionDays: number;
  /** Absent: outside any VPC, for a function that reaches nothing of the stage's network. */
  network?: { vpc: ec2.IVpc; vpcSubnets: ec2.SubnetSelection; securityGroups: ec2.ISecurityGroup[] };
  /** false: an inline stub instead of an esbuild bundle, so tests synthesize in seconds. */
  bundle: boolean;
  /**
   * Active X-Ray tracing: Lambda records each invocation (and its cold start) and runs the daemon the
   * service's own spans go to (shared/store/trace.ts). Off: no tracing configuration at all, and
   * POWERTOOLS_TRACE_DISABLED tells the code so.
   */
  tracing: boolean;
  /** Extra shell commands run after esbuild, e.g. to place data files next to the bundle. */
  afterBundling?: (inputDir: string, outputDir: string) => string[];
}

/**
 * One Lambda function as this service builds them all: ESM bundle with its source maps beside it, its
 * own log group (retention from configuration, and a place to hang metric filters), inside the isolated
 * subnets when it reaches the store or the budget table.
 */
export class ServiceFunction extends Construct {
  readonly fn: lambda.Function;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetentionDays as logs.RetentionDays });

    const common = {
      description: props.description,
      runtime: RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      timeout: props.timeout,
      memorySize: props.memorySize,
      // Text format on purpose: the handlers write one raw JSON line per request to stdout, which
      // CloudWatch keeps as-is, so JSON metric filters (`$.error_code`) match it directly.
      logGroup: this.logGroup,
      ...props.network,
      // No --enable-source-maps: reading the maps at start costs a measurable part of every cold start
      // (npm run bench -- bundles; docs/performance.md). The maps still ship in the asset: a logged
      // stack is mapped back by running the asset locally with the flag, or with any source-map tool,
      // when someone needs it.
      environment: props.tracing ? props.environment : { ...props.environment, POWERTOOLS_TRACE_DISABLED: 'true' },
      ...(props.tracing ? { tracing: lambda.Tracing.ACTIVE } : {}),
    } satisfies Partial<lambda.FunctionProps>;

    this.fn = props.bundle
      ? new nodejs.NodejsFunction(this, 'Fn', {
          ...common,
          entry: join(PROJECT_ROOT, props.entry),
          handler: 'handler',
          projectRoot: PROJECT_ROOT,
          depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
          bundling: {
            format: nodejs.OutputFormat.ESM,
            target: 'node24',
            minify: true,
            sourceMap: true,
            mainFields: ['module', 'main'],
            // ESM output still meets CommonJS dependencies (pg) that call require(); give them one.
            banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
            // Everything is bundled: one minified file imports markedly faster than node_modules
            // files (docs/performance.md), and pins the versions we test, the AWS SDK's clients of the
            // budget counter and the RDS IAM token included. Only the migrate function's Secrets
            // Manager client is left to the runtime's copy (it runs once per deploy). pg-native is an
            // optional addon pg never loads here. Powertools' tracer is bundled on its own, beside the
            // function's bundle, where its dynamic import finds it: a function that does not trace never
            // reads it (docs/operating.md#tracing).
            externalModules: ['@aws-sdk/client-secrets-manager', 'pg-native', TRACER_MODULE],
            commandHooks: {
              beforeBundling: () => [],
              beforeInstall: () => [],
              afterBundling: (inputDir, outputDir) => [
                ...tracerBundle(inputDir, outputDir),
                ...(props.afterBundling?.(inputDir, outputDir) ?? []),
              ],
            },
          },
        })
      : new lambda.Function(this, 'Fn', {
          ...common,
          handler: 'index.handler',
          code: lambda.Code.fromInline('exports.handler = async () => ({ statusCode: 503, body: "" });'),
        });

    Validations.of(this.fn).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'AWS-managed basic execution policy: CloudWatch Logs write for the function own log group, nothing else.',
    });
    if (props.tracing) {
      // What active tracing adds to the role: xray:PutTraceSegments and xray:PutTelemetryRecords, which
      // X-Ray authorizes on no resource narrower than "*" (it has no resource types).
      Validations.of(this.fn).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Active X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords only, which X-Ray does not scope to any resource narrower than "*".',
      });
    }
    if (props.network) {
      Validations.of(this.fn).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
        reason: 'AWS-managed VPC access policy: the ENI permissions Lambda needs to attach the function to the isolated subnets.',
      });
    }
  }
}
