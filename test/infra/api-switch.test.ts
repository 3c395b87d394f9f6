import { describe, expect, it } from '@jest/globals';
import { resources, synth } from './support.js';

type Template = { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };

/** The template with the api switch's two variables removed from every function. */
function withoutSwitch(template: Template): Template {
  const copy = structuredClone(template);
  for (const r of Object.values(copy.Resources)) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const vars = (r.Properties!.Environment as { Variables: Record<string, unknown> }).Variables;
    delete vars.API_DISABLED;
    delete vars.API_DISABLED_RETRY_AFTER;
  }
  return copy;
}

describe('api switch', () => {
  const on = synth({ apiEnabled: 'true' });
  const off = synth({ apiEnabled: 'false' });

  it('switching off sets API_DISABLED=true and Retry-After on every function, mcp and openapi included', () => {
    const fns = resources(off.statelessTemplate, 'AWS::Lambda::Function');
    expect(Object.keys(fns).length).toBeGreaterThanOrEqual(5);
    for (const fn of Object.values(fns)) {
      const vars = (fn.Properties!.Environment as { Variables: Record<string, string> }).Variables;
      expect(vars.API_DISABLED).toBe('true');
      expect(Number(vars.API_DISABLED_RETRY_AFTER)).toBeGreaterThan(0);
    }
    for (const fn of Object.values(resources(on.statelessTemplate, 'AWS::Lambda::Function'))) {
      expect((fn.Properties!.Environment as { Variables: Record<string, string> }).Variables.API_DISABLED).toBe('false');
    }
  });

  it('changes nothing else: same stateful stack, stateless identical but for those variables', () => {
    expect(off.statefulTemplate.toJSON()).toEqual(on.statefulTemplate.toJSON());
    const a = on.statelessTemplate.toJSON() as Template;
    const b = off.statelessTemplate.toJSON() as Template;
    expect(a).not.toEqual(b);
    expect(withoutSwitch(b)).toEqual(withoutSwitch(a));
  });

  it('is read from the stage configuration too, not only from the command line', () => {
    const fromStage = synth({ stages: { dev: { api: { enabled: false, retryAfterSeconds: 900 } } } });
    for (const fn of Object.values(resources(fromStage.statelessTemplate, 'AWS::Lambda::Function'))) {
      expect((fn.Properties!.Environment as { Variables: Record<string, string> }).Variables).toMatchObject({
        API_DISABLED: 'true',
        API_DISABLED_RETRY_AFTER: '900',
      });
    }
  });
});
