import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { PROJECT_ROOT } from '../../lib/constructs/service-function.js';
import { cdkJsonContext } from './support.js';

/** A child process to its end: exit code, stdout, stderr. */
function run(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const ONE_LINE =
  'invalid configuration for stage "prod": alarmEmail: oncall@example.com is a placeholder (example.com is reserved for examples and tests and receives no mail): alarms sent there reach nobody. Name a real address (cdk.json stages.prod.alarmEmail, or -c alarmEmail=...)\n';

describe('prod with the placeholder alarm address: one line naming the key to set, no stack trace', () => {
  it('the CDK app itself, as the CLI runs it (context in CDK_CONTEXT_JSON)', async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'geo-cdk-refusal-'));
    const { code, stdout, stderr } = await run(join(PROJECT_ROOT, 'node_modules/.bin/tsx'), ['bin/app.ts'], {
      CDK_CONTEXT_JSON: JSON.stringify({ ...cdkJsonContext, stage: 'prod', bundle: 'false' }),
      CDK_OUTDIR: outdir,
      CDK_DEFAULT_ACCOUNT: '111111111111',
      CDK_DEFAULT_REGION: 'eu-west-1',
    });
    expect(stderr).toBe(ONE_LINE);
    expect(stdout).toBe('');
    expect(code).toBe(1);
    // Nothing synthesized.
    expect(readdirSync(outdir).filter((f) => f.endsWith('.template.json'))).toEqual([]);
  }, 60_000);

  it('npm run synth -- -c stage=prod (scripts/synth.sh, through the CDK CLI)', async () => {
    const { code, stdout, stderr } = await run('bash', ['scripts/synth.sh', '-c', 'stage=prod', '-c', 'bundle=false'], {
      CDK_OUTDIR: mkdtempSync(join(tmpdir(), 'geo-cdk-refusal-')),
    });
    expect(stderr).toBe(ONE_LINE);
    expect(stdout).toBe('');
    expect(code).not.toBe(0);
  }, 120_000);

  it('a real address is what it asks for: with it the same synth goes through', async () => {
    const { code, stderr } = await run(
      'bash',
      ['scripts/synth.sh', '-c', 'stage=prod', '-c', 'bundle=false', '-c', 'alarmEmail=geo-oncall@measurement-ops.net'],
      { CDK_OUTDIR: mkdtempSync(join(tmpdir(), 'geo-cdk-refusal-')) },
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
  }, 180_000);
});
