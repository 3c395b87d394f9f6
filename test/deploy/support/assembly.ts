import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Json = Record<string, unknown>;
export interface Template {
  Resources: Record<string, { Type: string; Properties?: Json; Metadata?: Json }>;
  Outputs?: Record<string, { Value: unknown }>;
}

/** One function of the synthesized templates, as Lambda would run it. */
export interface FunctionSpec {
  stack: string;
  logicalId: string;
  /** The asset directory CDK bundled (esbuild), inside the cloud assembly. */
  taskRoot: string;
  handler: string;
  runtime: string;
  timeoutSeconds: number;
  memoryMb: number;
  /** Environment.Variables of the template, untouched (literals and tokens). */
  environment: Record<string, unknown>;
  /** TracingConfig.Mode is Active: Lambda then runs the X-Ray daemon and names it in the environment. */
  tracing: boolean;
}

export interface Assembly {
  dir: string;
  templates: Record<string, Template>;
  functions: FunctionSpec[];
}

export function readAssembly(dir: string, stacks: string[]): Assembly {
  const templates = Object.fromEntries(
    stacks.map((s) => [s, JSON.parse(readFileSync(join(dir, `${s}.template.json`), 'utf8')) as Template]),
  );
  const functions: FunctionSpec[] = [];
  for (const [stack, t] of Object.entries(templates)) {
    for (const [logicalId, r] of Object.entries(t.Resources)) {
      if (r.Type !== 'AWS::Lambda::Function') continue;
      const asset = r.Metadata?.['aws:asset:path'];
      if (typeof asset !== 'string') continue;
      const p = r.Properties!;
      functions.push({
        stack,
        logicalId,
        taskRoot: join(dir, asset),
        handler: String(p.Handler),
        runtime: String(p.Runtime),
        timeoutSeconds: Number(p.Timeout ?? 3),
        memoryMb: Number(p.MemorySize ?? 128),
        environment: ((p.Environment as Json | undefined)?.Variables as Record<string, unknown>) ?? {},
        tracing: (p.TracingConfig as Json | undefined)?.Mode === 'Active',
      });
    }
  }
  return { dir, templates, functions };
}

/** What an unresolvable token stands for, given the resource it references. */
export interface LocalEquivalents {
  /** `Fn::GetAtt [X, attr]` and `Ref X`, by the type of X (e.g. `AWS::RDS::DBProxy.Endpoint`, `AWS::DynamoDB::Table.Ref`). */
  byResource: Record<string, string>;
  /** `{{resolve:secretsmanager:<arn>:SecretString:::}}`: the value of the local secret with that ARN. */
  secretValue(arn: string): string;
}

/**
 * Resolves one environment value as CloudFormation would, with local equivalents for what only a
 * deployment knows. Literals are returned exactly as they are; only tokens are replaced, and a token
 * with no local equivalent fails loudly instead of being guessed.
 */
export function resolveValue(a: Assembly, stack: string, value: unknown, local: LocalEquivalents): string {
  if (typeof value === 'string') {
    return value.replace(
      /\{\{resolve:secretsmanager:(arn:[^:]+:secretsmanager:[^:]+:\d+:secret:[^:]+):SecretString:[^:]*:[^:]*:[^}]*\}\}/g,
      (_m, arn: string) => local.secretValue(arn),
    );
  }
  const o = value as Json;
  const t = a.templates[stack]!;
  if (o['Fn::Join']) {
    const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
    return resolveValue(a, stack, parts.map((p) => resolveValue(a, stack, p, local)).join(sep), local);
  }
  if (o['Fn::GetStackOutput']) {
    const { StackName, OutputName } = o['Fn::GetStackOutput'] as { StackName: string; OutputName: string };
    const out = a.templates[StackName]?.Outputs?.[OutputName];
    if (!out) throw new Error(`no output ${OutputName} in ${StackName}`);
    return resolveValue(a, StackName, out.Value, local);
  }
  if (o['Fn::ImportValue']) throw new Error(`Fn::ImportValue is not resolved by the rehearsal: ${JSON.stringify(o)}`);
  const ref = (id: string, attr: string) => {
    const type = t.Resources[id]?.Type;
    const key = `${type}.${attr}`;
    const found = local.byResource[key];
    if (found === undefined) throw new Error(`no local equivalent for ${key} (${stack}/${id})`);
    return found;
  };
  if (typeof o.Ref === 'string') return ref(o.Ref, 'Ref');
  if (o['Fn::GetAtt']) {
    const [id, attr] = o['Fn::GetAtt'] as [string, string];
    return ref(id, attr);
  }
  throw new Error(`unresolvable token: ${JSON.stringify(o)}`);
}

export interface InvokeResult {
  ok: boolean;
  result?: unknown;
  errorType?: string;
  errorMessage?: string;
  /** CPU time of the function's process, cold start included. */
  cpuMs?: number;
  logs: string;
}

/**
 * Invokes a bundle in a fresh plain `node` process (one cold execution environment per call) with the
 * given environment and nothing else of this process's.
 */
export function invoke(fn: FunctionSpec, env: Record<string, string>, event: unknown, node = process.execPath): Promise<InvokeResult> {
  const runner = join(dirname(fileURLToPath(import.meta.url)), 'runtime-runner.mjs');
  if (!existsSync(runner)) throw new Error(`runner missing: ${runner}`);
  return new Promise((resolve, reject) => {
    const child = spawn(node, [runner, fn.taskRoot, fn.handler, String(fn.timeoutSeconds)], {
      cwd: fn.taskRoot,
      env,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    });
    let logs = '';
    let reply = '';
    // Decoded by the streams, not chunk by chunk: a character whose UTF-8 bytes straddle two chunks of a
    // large reply (the reference page's) would otherwise come out as two U+FFFD.
    const streams = [child.stdout!, child.stderr!, child.stdio[3] as NodeJS.ReadableStream];
    for (const stream of streams) stream.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => (logs += d));
    child.stderr!.on('data', (d: string) => (logs += d));
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: string) => (reply += d));
    // Lambda's own limit: the environment is stopped at the function's timeout.
    const timer = setTimeout(() => child.kill('SIGKILL'), fn.timeoutSeconds * 1000 + 5_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (!reply) return resolve({ ok: false, errorType: 'Runtime.ExitError', errorMessage: `exited with ${code} before answering`, logs });
      resolve({ ...(JSON.parse(reply) as Omit<InvokeResult, 'logs'>), logs });
    });
    child.stdin!.end(JSON.stringify(event));
  });
}
