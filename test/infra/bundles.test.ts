import { describe, expect, test } from '@jest/globals';
import { build } from 'esbuild';
import { FAMILIES } from '#shared/reads/types.js';

/**
 * Each family Lambda bundles its own part of the read table and nothing of the others, so its cold start
 * pays for no other family's reads: the bundle is built the way CDK builds it
 * (lib/constructs/service-function.ts), and its inputs are read from esbuild's metafile. The MCP function, which serves every read as a tool, bundles them all.
 */
async function inputsOf(entry: string): Promise<string[]> {
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    metafile: true,
    mainFields: ['module', 'main'],
    external: ['@aws-sdk/client-secrets-manager', 'pg-native'],
    logLevel: 'error',
  });
  return Object.keys(out.metafile.inputs);
}

/** The read family an input belongs to; shared parts of the reads (contracts, windows) belong to none. */
const familyOf = (input: string) => FAMILIES.find((family) => input.startsWith(`shared/reads/${family}/`));

describe('function bundles', () => {
  test.each(FAMILIES)('the %s function bundles its reads only, and no MCP, OpenAPI builder or other family', async (family) => {
    const inputs = await inputsOf(`functions/${family}/handler.ts`);
    const families = new Set(inputs.map(familyOf).filter(Boolean));
    expect([...families]).toEqual([family]);
    expect(inputs.filter((i) => i.startsWith(`shared/reads/${family}/`)).length).toBeGreaterThan(1);
    expect(inputs.some((i) => i.includes('@modelcontextprotocol'))).toBe(false);
    expect(inputs.some((i) => i.startsWith('scripts/openapi/document'))).toBe(false);
    expect(inputs.some((i) => i === 'shared/reads/registry.ts' || i === 'shared/rest/routes.ts')).toBe(false);
  });

  test('the MCP function bundles every family; the OpenAPI function none', async () => {
    const mcp = new Set((await inputsOf('functions/mcp/handler.ts')).map(familyOf).filter(Boolean));
    expect([...mcp].sort()).toEqual([...FAMILIES].sort());
    const openapi = await inputsOf('functions/openapi/handler.ts');
    expect(openapi.some((i) => i.startsWith('shared/reads/') || i.includes('node_modules/zod/'))).toBe(false);
  });
});
