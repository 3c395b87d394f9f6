import { beforeAll, describe, expect, it } from '@jest/globals';
import { reads } from '#shared/reads/registry.js';
import { FAMILIES } from '#shared/reads/types.js';
import { DEFAULT_ROUTE_KEY, routeKey, routes as sharedRoutes } from '#shared/rest/routes.js';
import { CONTRACT_PATHS, type Resources, resources, synth } from './support.js';

/** Logical id prefix of each function in the stateless stack (construct ids in lib/stateless-stack.ts). */
const fnPrefix = (target: string) => `${target[0]!.toUpperCase()}${target.slice(1)}Fn`;

describe('HTTP API routes', () => {
  let routes: Array<{ routeKey: string; functionId: string }>;
  let functions: Resources;

  beforeAll(() => {
    const { statelessTemplate } = synth();
    functions = resources(statelessTemplate, 'AWS::Lambda::Function');
    const integrations = resources(statelessTemplate, 'AWS::ApiGatewayV2::Integration');
    routes = Object.values(resources(statelessTemplate, 'AWS::ApiGatewayV2::Route')).map((r) => {
      const target = (r.Properties!.Target as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
      const integrationId = (target[1] as { Ref: string }).Ref;
      const uri = integrations[integrationId]!.Properties!.IntegrationUri as { 'Fn::GetAtt': [string, string] };
      return { routeKey: r.Properties!.RouteKey as string, functionId: uri['Fn::GetAtt'][0] };
    });
  });

  it('has one function per read family, plus mcp and openapi, and nothing else', () => {
    const ids = Object.keys(functions);
    for (const target of [...FAMILIES, 'mcp', 'openapi']) {
      expect(ids.filter((id) => id.startsWith(fnPrefix(target)))).toHaveLength(1);
    }
    expect(ids).toHaveLength(FAMILIES.length + 2);
  });

  it('sends every read of the read table to the function of its family', () => {
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) {
      const route = routes.find((r) => r.routeKey === `GET /api/v1${read.path}`);
      expect(route).toBeDefined();
      expect(route!.functionId.startsWith(fnPrefix(read.family))).toBe(true);
    }
  });

  it('routes the OpenAPI document, MCP and everything else to their functions', () => {
    const to = (key: string) => routes.find((r) => r.routeKey === key)?.functionId ?? '';
    expect(to('GET /api/v1/openapi.json').startsWith(fnPrefix('openapi'))).toBe(true);
    expect(to('POST /api/v1/mcp').startsWith(fnPrefix('mcp'))).toBe(true);
    // The catch-all goes to the function that answers 404/405 from the contract, in the envelope.
    expect(to('$default').startsWith(fnPrefix('openapi'))).toBe(true);
  });

  it('routes exactly: GET and HEAD per read and for /openapi.json, POST /mcp and $default; no other method or catch-all', () => {
    const reading = ['GET', 'HEAD'].flatMap((method) => [
      ...reads.map((r) => `${method} /api/v1${r.path}`),
      `${method} /api/v1/openapi.json`,
    ]);
    const expected = new Set([...reading, 'POST /api/v1/mcp', '$default']);
    expect(new Set(routes.map((r) => r.routeKey))).toEqual(expected);
    expect(routes).toHaveLength(expected.size);
    expect(routes.some((r) => r.routeKey.startsWith('ANY ') || /\{proxy\+\}/.test(r.routeKey))).toBe(false);
  });

  it('matches the route table the local adapter serves (shared/rest/routes.ts)', () => {
    const local = new Set([...sharedRoutes().map(routeKey), DEFAULT_ROUTE_KEY]);
    expect(new Set(routes.map((r) => r.routeKey))).toEqual(local);
  });

  it('follows the read table of the spec: fifteen reads, each path routed', () => {
    expect(reads.map((r) => r.path).sort()).toEqual([...CONTRACT_PATHS].sort());
    expect(new Set(reads.map((r) => r.name)).size).toBe(reads.length);
  });
});
