import { describe, expect, it } from '@jest/globals';
import type { Template } from 'aws-cdk-lib/assertions';
import { PROD, type Resources, resources, synth } from './support.js';

type Fn = Resources[string];
const env = (fn: Fn) =>
  ((fn.Properties!.Environment as { Variables: Record<string, unknown> } | undefined)?.Variables ?? {}) as Record<string, unknown>;
const list = <T>(v: T | T[]) => (Array.isArray(v) ? v : [v]);

/** The functions this repository builds (lib/constructs/service-function.ts): the five behind the API and the migration function. */
function serviceFunctions(stateful: Template, stateless: Template): Array<[string, Fn]> {
  const migrate = Object.entries(resources(stateful, 'AWS::Lambda::Function')).filter(([id]) => id.startsWith('MigrationRunnerMigrate'));
  const all = [...Object.entries(resources(stateless, 'AWS::Lambda::Function')), ...migrate];
  expect(all.map(([id]) => id.slice(0, id.lastIndexOf('Fn'))).sort()).toEqual([
    'Catalog',
    'Figures',
    'Identity',
    'Mcp',
    'MigrationRunnerMigrate',
    'Openapi',
  ]);
  return all;
}

/** Every action the function's role may take, and on what. */
function grants(template: Template, fn: Fn): Array<{ action: string; resource: unknown }> {
  const role = (fn.Properties!.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
  return Object.values(resources(template, 'AWS::IAM::Policy'))
    .filter((p) => (p.Properties!.Roles as Array<{ Ref: string }>).some((r) => r.Ref === role))
    .flatMap((p) => (p.Properties!.PolicyDocument as { Statement: Array<{ Action: string | string[]; Resource: unknown }> }).Statement)
    .flatMap((st) => list(st.Action).map((action) => ({ action, resource: st.Resource })));
}

const XRAY = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];

describe('X-Ray tracing: on by default, off by configuration', () => {
  const dev = synth({}, { account: '111111111111', region: 'eu-west-1' });

  it('dev as committed: every function of the service has active tracing, and may send segments and nothing more for it', () => {
    const fns = serviceFunctions(dev.statefulTemplate, dev.statelessTemplate);
    for (const [id, fn] of fns) {
      expect([id, fn.Properties!.TracingConfig]).toEqual([id, { Mode: 'Active' }]);
      expect(env(fn).POWERTOOLS_TRACE_DISABLED).toBeUndefined();
      const template = id.startsWith('MigrationRunner') ? dev.statefulTemplate : dev.statelessTemplate;
      const xray = grants(template, fn).filter((g) => g.action.startsWith('xray:'));
      expect(xray.map((g) => g.action).sort()).toEqual(XRAY);
      // X-Ray has no resource types: "*" is the only resource these two actions take.
      for (const g of xray) expect(g.resource).toBe('*');
      // Nothing else of the role reaches every resource.
      for (const g of grants(template, fn).filter((g) => !g.action.startsWith('xray:'))) expect(list(g.resource)).not.toContain('*');
    }
  });

  it('prod as committed (with a real alarm address) traces too', () => {
    const prod = synth(PROD);
    for (const [, fn] of serviceFunctions(prod.statefulTemplate, prod.statelessTemplate))
      expect(fn.Properties!.TracingConfig).toEqual({ Mode: 'Active' });
  });

  it.each([
    ['cdk.json', { stages: { dev: { tracing: false } } }],
    ['-c tracing=false', { tracing: 'false' }],
  ])('switched off (%s): no tracing configuration, no X-Ray grant, and the code is told so', (_how, context) => {
    const off = synth(context);
    expect(off.config.tracing).toBe(false);
    for (const [id, fn] of serviceFunctions(off.statefulTemplate, off.statelessTemplate)) {
      expect(fn.Properties!.TracingConfig).toBeUndefined();
      expect(env(fn).POWERTOOLS_TRACE_DISABLED).toBe('true');
      const template = id.startsWith('MigrationRunner') ? off.statefulTemplate : off.statelessTemplate;
      expect(grants(template, fn).filter((g) => g.action.startsWith('xray:'))).toEqual([]);
    }
  });

  it('-c tracing=true switches a stage that turned it off back on; a value other than true or false is refused in one line', () => {
    const on = synth({ stages: { dev: { tracing: false } }, tracing: 'true' });
    for (const [, fn] of serviceFunctions(on.statefulTemplate, on.statelessTemplate))
      expect(fn.Properties!.TracingConfig).toEqual({ Mode: 'Active' });
    expect(() => synth({ tracing: 'off' })).toThrow('-c tracing must be true or false, not "off"');
  });
});
