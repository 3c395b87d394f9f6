import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { build } from 'esbuild';
import { KeyRevoked, MethodNotAllowed, Unauthorized } from '#shared/errors.js';
import { UNTRUSTED_KEYWORD, UNTRUSTED_NOTE } from '#shared/reads/contracts/common.js';
import { reads } from '#shared/reads/registry.js';
import { isScoped, pathParams } from '#shared/reads/types.js';
import { FIRST_DAY, LAST_DAY, MAX_WINDOW_DAYS } from '#shared/reads/windows.js';
import { OPENAPI_FILE, serializeOpenApi } from '#shared/rest/serialize-openapi.js';
import { buildOpenApi, examplesOf, type OpenApiDocument } from '../../scripts/openapi/document.js';
import { COMMON_CODES } from '../../scripts/openapi/errors.js';
import { expectMatchesOpenApi } from '../support/openapi.js';

// ajv-formats is CommonJS with `exports.default`; under ESM interop the function may sit one level down.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;
const root = join(import.meta.dirname, '..', '..');
const committed = () => readFile(join(root, OPENAPI_FILE), 'utf8');
const HINT = 'run `npm run openapi` and commit openapi/openapi.json and the files it writes';

describe('openapi/openapi.json is the document the code builds', () => {
  // The examples are taken from the file here; test/openapi/examples.test.ts re-makes them from the demo data.
  test('the committed file equals a fresh build, byte for byte', async () => {
    const file = await committed();
    const fresh = serializeOpenApi(buildOpenApi(reads, examplesOf(JSON.parse(file) as OpenApiDocument)));
    if (file !== fresh) throw new Error(`openapi/openapi.json is stale: ${HINT}`);
  });

  test('parse + serialize gives the same bytes (what the bundled function relies on)', async () => {
    const file = await committed();
    expect(serializeOpenApi(JSON.parse(file))).toBe(file);
  });
});

/** A parameter, or the named parameter it refers to. */
const param = (doc: OpenApiDocument, p: any) => (p.$ref ? (doc.components.parameters as any)[p.$ref.split('/').pop()] : p);

describe('what the document states', () => {
  const doc = buildOpenApi();

  test('every read of the table, under its name, with its parameters and response schema', () => {
    for (const read of reads) {
      const op = doc.paths[read.path]?.get as any;
      expect(op?.operationId).toBe(read.name);
      expect(op.summary).toBe(read.summary);
      const params = op.parameters
        .map((p: any) => param(doc, p))
        .map((p: any) => `${p.in}:${p.name}`)
        .sort();
      const inPath = pathParams(read.path);
      const expected = Object.keys(read.input.shape)
        .map((n) => `${inPath.includes(n) ? 'path' : 'query'}:${n}`)
        .sort();
      expect(params).toEqual(expected);
      expect(op.responses['200'].content['application/json'].schema.$ref).toMatch(/^#\/components\/schemas\/\w+$/);
      const codes = new Set<string>();
      for (const [status, r] of Object.entries(op.responses)) {
        if (status === '200') continue;
        const resp = (doc.components.responses as any)[(r as any).$ref.split('/').pop()];
        for (const c of resp.content['application/json'].schema.allOf[1].properties.error.properties.code.enum) codes.add(c);
      }
      for (const c of [...COMMON_CODES, ...read.errors, ...(isScoped(read) ? ['analysis_not_found'] : [])]) expect(codes).toContain(c);
    }
  });

  test('bounds and defaults of the parameters come from the zod contracts', () => {
    // A parameter shared by several reads is a component; the operation refers to it.
    const resolve = (p: any) => (p.$ref ? (doc.components as any).parameters[p.$ref.split('/').pop()] : p);
    const list = (doc.paths['/analyses'] as any).get.parameters.map(resolve).find((p: any) => p.name === 'limit');
    expect(list).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } });
    expect(list.description).toMatch(/1\.\.200/);
  });

  test('served responses state the budget headers; 401 does not, and states its challenge; 429 adds Retry-After', () => {
    const me = doc.paths['/me']?.get as any;
    expect(Object.keys(me.responses['200'].headers).sort()).toEqual([
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'X-Request-Id',
    ]);
    const r401 = (doc.components.responses as any).unauthorized_or_key_revoked;
    expect(Object.keys(r401.headers)).toEqual(['X-Request-Id', 'WWW-Authenticate']);
    expect(Object.keys((doc.components.responses as any).rate_limited.headers)).toContain('Retry-After');
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect((doc.paths['/openapi.json'] as any).get.security).toEqual([]);
  });

  test('a 401 states WWW-Authenticate (RFC 6750) in the form the service sends, required', () => {
    const header = (doc.components.headers as any)['WWW-Authenticate'];
    expect(header.required).toBe(true);
    expect(header.description).toMatch(/RFC 6750/);
    const form = new RegExp(header.schema.pattern);
    expect(new Unauthorized().headers()['www-authenticate']).toMatch(form);
    expect(new KeyRevoked().headers()['www-authenticate']).toMatch(form);
    expect('Bearer realm="x"').not.toMatch(form);
    for (const op of reads.map((r) => doc.paths[r.path]?.get as any)) {
      expect(op.responses['401'].$ref).toBe('#/components/responses/unauthorized_or_key_revoked');
    }
  });

  test('GET and DELETE /mcp are described as what they answer: 405 with Allow, before any key', () => {
    const allow = (doc.components.headers as any).Allow;
    expect(allow.required).toBe(true);
    for (const method of ['get', 'delete'] as const) {
      const op = (doc.paths['/mcp'] as any)[method];
      expect(op.security).toEqual([]);
      expect(Object.keys(op.responses).sort()).toEqual(['405', '503']);
      const r405 = (doc.components.responses as any)[op.responses['405'].$ref.split('/').pop()];
      expect(Object.keys(r405.headers)).toEqual(['X-Request-Id', 'Allow']);
      expect(r405.content['application/json'].schema.allOf[1].properties.error.properties.code.enum).toEqual(['method_not_allowed']);
    }
    expect(new MethodNotAllowed(['POST']).headers().allow).toMatch(new RegExp(allow.schema.pattern));
  });

  test('the validator refuses what the document does not allow', () => {
    const headers = new Headers({
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': '6f1c2b1e-5d8a-4f7e-9c3b-2a1d0e9f8c7b',
    });
    const body = { error: { code: 'not_a_code', message: 'x', request_id: '6f1c2b1e-5d8a-4f7e-9c3b-2a1d0e9f8c7b' } };
    expect(() => expectMatchesOpenApi('GET', '/me', { status: 401, headers, text: JSON.stringify(body), body })).toThrow(/openapi/);
    const ok = { error: { ...body.error, code: 'unauthorized' } };
    expect(() => expectMatchesOpenApi('GET', '/me', { status: 401, headers, text: JSON.stringify(ok), body: ok })).toThrow(
      /WWW-Authenticate/,
    );
    const challenged = new Headers(headers);
    challenged.set('www-authenticate', new Unauthorized().headers()['www-authenticate'] as string);
    expect(() =>
      expectMatchesOpenApi('GET', '/me', { status: 401, headers: challenged, text: JSON.stringify(ok), body: ok }),
    ).not.toThrow();
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
      const event = {
        rawPath: '/api/v1/openapi.json',
        headers: {},
        requestContext: { http: { method: 'GET' } },
      } as unknown as APIGatewayProxyEventV2;
      const res = await handler(event, {} as Context);
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(await committed());
      expect(res.headers).toMatchObject({
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** Every schema object of the document, with a readable path. */
function* schemaNodes(node: unknown, path: string): Generator<[string, Record<string, any>]> {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) yield* schemaNodes(v, `${path}[${i}]`);
  } else if (node && typeof node === 'object') {
    yield [path, node as Record<string, any>];
    for (const [k, v] of Object.entries(node)) if (k !== 'examples' && k !== 'example') yield* schemaNodes(v, `${path}.${k}`);
  }
}

describe('shared parts are named components, referred to, not copied', () => {
  const doc = JSON.parse(JSON.stringify(buildOpenApi())) as OpenApiDocument;
  const text = serializeOpenApi(doc);
  const schemas = doc.components.schemas as Record<string, any>;
  const refs = (id: string) => text.split(`"$ref": "#/components/schemas/${id}"`).length - 1;

  test('the document as committed and served, examples included, is at most 205 KB pretty-printed', async () => {
    // The committed file is what GET /openapi.json serves, byte for byte (see 'the bundled openapi function').
    const served = Buffer.byteLength(await committed());
    console.log(
      `openapi.json as served: ${served} bytes (${Buffer.byteLength(text)} without its examples); ${Object.keys(schemas).length} schemas, ${Object.keys(doc.components.parameters ?? {}).length} parameters, ${Object.keys(doc.components.headers).length} headers, ${Object.keys(doc.components.responses).length} responses`,
    );
    expect(served).toBeLessThanOrEqual(205_000);
  });

  test('the measurement context, rates, means, intervals... are components, each referred to where used', () => {
    for (const id of [
      'measurement_context',
      'headline_metrics',
      'rate',
      'rate_value',
      'mean',
      'mean_value',
      'interval',
      'source_share',
      'engine_ref',
      'run_ref',
      'engine_coverage',
      'day_rate',
      'day_source_share',
      'series_day',
      'series_day_without_run',
    ]) {
      expect(schemas[id]).toBeDefined();
      expect(refs(id)).toBeGreaterThanOrEqual(1);
    }
    // The context of every figure read is the one component.
    for (const read of reads.filter((r) => r.family === 'figures')) {
      const out = schemas[(doc.paths[read.path] as any).get.responses['200'].content['application/json'].schema.$ref.split('/').pop()];
      expect(out.properties.context.$ref).toBe('#/components/schemas/measurement_context');
    }
    expect(refs('rate')).toBeGreaterThanOrEqual(5);
  });

  test('a shared part is written once: its properties appear in its component only', () => {
    // zod's extend writes the fields of the schema it extends again (source_share is a rate plus its
    // null_reason, a rate is a rate_value plus the comparison, engine_metrics the headline metrics plus
    // the engine); the document extends the part instead (allOf), so each field has one owner.
    const cases = [
      // day_move: a day's move since the previous measured day, the test of a rate without its values.
      ['significant', ['day_move', 'mean', 'rate']],
      ['delta_ci95', ['day_move', 'mean', 'rate']],
      ['low', ['interval', 'interval_any']],
      ['coverage', ['measurement_context']],
      ['numerator', ['day_rate', 'rate_value']],
      ['extracted_answers', ['headline_metrics', 'series_day_figures']],
    ] as const;
    for (const [prop, owners] of cases) {
      const found = [...schemaNodes(doc, '')].filter(([, n]) => n.properties && prop in n.properties).map(([p]) => p);
      expect(found).toEqual(owners.map((o) => `.components.schemas.${o}`));
    }
  });

  test('an extended part is referred to by allOf, and closed where it is used: the same bodies validate as before', () => {
    for (const [id, base] of [
      ['engine_metrics', 'headline_metrics'],
      ['group_metrics', 'headline_metrics'],
      ['source_share', 'rate'],
      ['rate', 'rate_value'],
      ['day_source_share', 'day_rate'],
    ]) {
      expect({ id, allOf: schemas[id as string].allOf }).toEqual({ id, allOf: [{ $ref: `#/components/schemas/${base}` }] });
    }
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc as object, 'openapi.json');
    const check = (schema: string, value: unknown) => ajv.compile({ $ref: `openapi.json#/components/schemas/${schema}` })(value);
    // The extended parts themselves are open; each place that uses one closes it.
    expect(schemas.metrics.properties.metrics).toEqual({ $ref: '#/components/schemas/window_metrics' });
    expect(schemas.window_metrics.allOf).toEqual([{ $ref: '#/components/schemas/headline_metrics' }]);
    const rate = {
      value: 0.5,
      numerator: 1,
      denominator: 2,
      ci95: { low: 0.1, high: 0.9 },
      previous: null,
      delta: null,
      delta_ci95: null,
      significant: null,
      p_value: null,
      significant_fdr: null,
    };
    const mean = {
      value: 1.5,
      count: 2,
      ci95: { low: -4.853102, high: 7.853102 },
      previous: null,
      delta: null,
      delta_ci95: null,
      significant: null,
      p_value: null,
      significant_fdr: null,
    };
    const metrics = {
      answers: 2,
      extracted_answers: 2,
      visibility: rate,
      share_of_voice: rate,
      average_position: mean,
      sentiment: mean,
      source_share: { ...rate, null_reason: null },
    };
    const engine = { ...metrics, engine: { key: 'chatgpt', name: 'ChatGPT' }, segments: null };
    expect(check('engine_metrics', engine)).toBe(true);
    expect(check('headline_metrics', metrics)).toBe(true);
    // A field the contract does not name is refused at every level, as when each part was written out.
    expect(check('engine_metrics', { ...engine, extra: 1 })).toBe(false);
    const windowMetrics = {
      ...metrics,
      share_of_voice_direct: { ...rate, null_reason: null },
      share_of_voice_universe: { direct: 0, discovered: 0 },
    };
    expect(check('metrics/properties/metrics', windowMetrics)).toBe(true);
    expect(check('metrics/properties/metrics', { ...windowMetrics, engine: engine.engine })).toBe(false);
    expect(check('engine_metrics', { ...engine, visibility: { ...rate, extra: 1 } })).toBe(false);
    expect(check('engine_metrics', { ...engine, source_share: { ...metrics.source_share, extra: 1 } })).toBe(false);
    expect(
      check('engine_metrics', {
        ...engine,
        visibility: { ...rate, previous: { value: 0.5, numerator: 1, denominator: 2, ci95: null, extra: 1 } },
      }),
    ).toBe(false);
    expect(
      check('engine_metrics', { ...engine, visibility: { ...rate, previous: { value: 0.5, numerator: 1, denominator: 2, ci95: null } } }),
    ).toBe(true);
    const { engine: _engine, ...missing } = engine;
    expect(check('engine_metrics', missing)).toBe(false);
  });

  test('component ids are snake_case type names', () => {
    for (const id of Object.keys(schemas)) expect(id).toMatch(/^[a-z]+(_[a-z0-9]+)*$/);
  });
});

describe('nullable fields carry their own description; dates; contact', () => {
  const doc = JSON.parse(JSON.stringify(buildOpenApi())) as OpenApiDocument;
  const nodes = [...schemaNodes(doc.components, '')];

  test('a nullable field is one schema of type [T, "null"] with its description on it', () => {
    const typed = nodes.filter(([, n]) => Array.isArray(n.type) && n.type.includes('null'));
    expect(typed.length).toBeGreaterThan(40);
    for (const [path, n] of typed) {
      if (/\.schemas\.\w+$/.test(path)) continue; // a component's own description is its definition
      expect({ path, description: typeof n.description }).toEqual({ path, description: 'string' });
      if (n.enum) expect(n.enum).toContain(null);
    }
  });

  test('a nullable named part keeps anyOf, with the field description on the field and on its reference (where Redoc reads it)', () => {
    const unions = nodes.filter(([, n]) => Array.isArray(n.anyOf) && n.anyOf.some((v: any) => v.type === 'null'));
    expect(unions.length).toBeGreaterThan(0);
    for (const [path, n] of unions) {
      expect({ path, variants: n.anyOf.length, ref: typeof n.anyOf[0].$ref }).toEqual({ path, variants: 2, ref: 'string' });
      expect(typeof n.description).toBe('string');
      expect(n.anyOf[0].description).toBe(n.description);
    }
  });

  test('integers show no invented bounds (zod states the safe-integer range)', () => {
    expect(JSON.stringify(doc)).not.toContain(String(Number.MAX_SAFE_INTEGER));
  });

  test('from/to: format date, with the bounds and the longest span in their description', () => {
    for (const name of ['from', 'to']) {
      const p = (doc.components.parameters as any)[name];
      expect(p.schema.format).toBe('date');
      for (const fact of [FIRST_DAY, LAST_DAY, `${MAX_WINDOW_DAYS} days`]) expect(p.description).toContain(fact);
    }
    const figures = reads.filter((r) => 'from' in r.input.shape);
    expect(figures.length).toBeGreaterThanOrEqual(8);
    for (const read of figures) {
      const refsTo = (doc.paths[read.path] as any).get.parameters.map((p: any) => p.$ref).filter(Boolean);
      expect(refsTo).toEqual(expect.arrayContaining(['#/components/parameters/from', '#/components/parameters/to']));
    }
  });

  test('info.contact names who answers, and invents no address', () => {
    const contact = (doc.info as any).contact;
    expect(contact.name).toMatch(/X-Request-Id/);
    expect(contact.email).toBeUndefined();
  });
});

describe('strings written by AI engines are marked untrusted', () => {
  const doc = JSON.parse(JSON.stringify(buildOpenApi())) as OpenApiDocument;
  const marked = [...schemaNodes(doc.components.schemas, '')].filter(([, n]) => n[UNTRUSTED_KEYWORD] !== undefined);

  test('every marked field says so first in its description, and is a string', () => {
    for (const [path, n] of marked) {
      expect({ path, marker: n[UNTRUSTED_KEYWORD], type: n.type }).toEqual({ path, marker: true, type: 'string' });
      expect(n.description.startsWith(UNTRUSTED_NOTE)).toBe(true);
    }
  });

  test('exactly these fields are engine-written: answer text, brands named, cited addresses and domains', () => {
    const fields = marked.map(([path]) => path.replace(/^\.(\w+)\.properties\.(\w+)$/, '$1.$2')).sort();
    // competitor.name: indirect competitors are named by AI answers (direct ones by the workspace; one field).
    // Not marked, on purpose: prompt texts, group, brand and analysis names (written by the workspace),
    // engine names and recipes (ours), tracked_brand.name (the workspace's own brand).
    expect(fields).toEqual(['answer.text', 'citation.domain', 'citation.url', 'competitor.name', 'mention.brand', 'source.domain']);
  });
});
