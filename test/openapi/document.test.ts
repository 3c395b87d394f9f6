import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from '@jest/globals';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { build } from 'esbuild';
import { buildOpenApi } from '../../shared/openapi/document.js';
import { COMMON_CODES } from '../../shared/openapi/errors.js';
import { OPENAPI_FILE, serializeOpenApi } from '../../shared/openapi/serialize.js';
import { reads } from '../../shared/reads/registry.js';
import { isScoped, pathParams } from '../../shared/reads/types.js';
import { CLIENT_TYPES_FILE, clientTypes } from '../../scripts/openapi-client.js';
import { expectMatchesOpenApi } from '../support/openapi.js';

const root = join(import.meta.dirname, '..', '..');
const committed = () => readFile(join(root, OPENAPI_FILE), 'utf8');
const HINT = 'run `npm run openapi` and commit openapi/openapi.json and examples/client/schema.d.ts';

describe('openapi/openapi.json is the document the code builds', () => {
  test('the committed file equals a fresh build, byte for byte', async () => {
    const fresh = serializeOpenApi(buildOpenApi());
    const file = await committed();
    if (file !== fresh) throw new Error(`openapi/openapi.json is stale: ${HINT}`);
  });

  test('the committed client types equal those generated from it', async () => {
    const file = await readFile(join(root, CLIENT_TYPES_FILE), 'utf8');
    if (file !== (await clientTypes(JSON.parse(await committed())))) throw new Error(`${CLIENT_TYPES_FILE} is stale: ${HINT}`);
  });

  test('parse + serialize gives the same bytes (what the bundled function relies on)', async () => {
    const file = await committed();
    expect(serializeOpenApi(JSON.parse(file))).toBe(file);
  });
});

describe('what the document states', () => {
  const doc = buildOpenApi();

  test('every read of the table, under its name, with its parameters and response schema', () => {
    for (const read of reads) {
      const op = doc.paths[read.path]?.get as any;
      expect(op?.operationId).toBe(read.name);
      expect(op.summary).toBe(read.summary);
      const params = op.parameters.map((p: any) => `${p.in}:${p.name}`).sort();
      const inPath = pathParams(read.path);
      const expected = Object.keys(read.input.shape).map((n) => `${inPath.includes(n) ? 'path' : 'query'}:${n}`).sort();
      expect(params).toEqual(expected);
      expect(op.responses['200'].content['application/json'].schema.$ref).toMatch(/^#\/components\/schemas\/\w+$/);
      const codes = new Set<string>();
      for (const [status, r] of Object.entries(op.responses)) {
        if (status === '200') continue;
        const resp = (doc.components.responses as any)[(r as any).$ref.split('/').pop()];
        for (const c of resp.content['application/json'].schema.properties.error.properties.code.enum) codes.add(c);
      }
      for (const c of [...COMMON_CODES, ...read.errors, ...(isScoped(read) ? ['analysis_not_found'] : [])]) expect(codes).toContain(c);
    }
  });

  test('bounds and defaults of the parameters come from the zod contracts', () => {
    const list = (doc.paths['/analyses']?.get as any).parameters.find((p: any) => p.name === 'limit');
    expect(list).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } });
    expect(list.description).toMatch(/1\.\.200/);
  });

  test('served responses state the budget headers; 401 does not; 429 adds Retry-After', () => {
    const me = doc.paths['/me']?.get as any;
    expect(Object.keys(me.responses['200'].headers).sort()).toEqual(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id']);
    const r401 = (doc.components.responses as any).unauthorized_or_key_revoked;
    expect(Object.keys(r401.headers)).toEqual(['X-Request-Id']);
    expect(Object.keys((doc.components.responses as any).rate_limited.headers)).toContain('Retry-After');
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect((doc.paths['/openapi.json']?.get as any).security).toEqual([]);
  });

  test('the validator refuses what the document does not allow', () => {
    const headers = new Headers({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': '6f1c2b1e-5d8a-4f7e-9c3b-2a1d0e9f8c7b' });
    const body = { error: { code: 'not_a_code', message: 'x', request_id: '6f1c2b1e-5d8a-4f7e-9c3b-2a1d0e9f8c7b' } };
    expect(() => expectMatchesOpenApi('GET', '/me', { status: 401, headers, text: JSON.stringify(body), body })).toThrow(/openapi/);
    const ok = { error: { ...body.error, code: 'unauthorized' } };
    expect(() => expectMatchesOpenApi('GET', '/me', { status: 401, headers, text: JSON.stringify(ok), body: ok })).not.toThrow();
    expect(() => expectMatchesOpenApi('GET', '/me', { status: 200, headers, text: '{}', body: {} })).toThrow(/X-RateLimit/);
    expect(() => expectMatchesOpenApi('GET', '/me', { status: 418, headers, text: JSON.stringify(ok), body: ok })).toThrow(/418/);
  });
});

describe('the bundled openapi function', () => {
  test('esbuild bundles the JSON, and the function serves the file byte for byte', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'openapi-fn-'));
    try {
      // As CDK's NodejsFunction builds it (lib/constructs/service-function.ts): ESM, node target, one file.
      await build({
        entryPoints: [join(root, 'functions/openapi/handler.ts')],
        outfile: join(dir, 'index.mjs'),
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
        logLevel: 'silent',
      });
      const { handler } = (await import(pathToFileURL(join(dir, 'index.mjs')).href)) as {
        handler: (e: APIGatewayProxyEventV2, c: Context) => Promise<APIGatewayProxyStructuredResultV2>;
      };
      const event = { rawPath: '/api/v1/openapi.json', headers: {}, requestContext: { http: { method: 'GET' } } } as unknown as APIGatewayProxyEventV2;
      const res = await handler(event, {} as Context);
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(await committed());
      expect(res.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
