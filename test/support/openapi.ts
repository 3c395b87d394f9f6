import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { standalone } from '#shared/reads/contracts/json-schema.js';
import { BASE_PATH, matchPath, routes } from '#shared/rest/routes.js';
import { buildOpenApi, type OpenApiDocument } from '../../scripts/openapi/document.js';
import { errorSchema } from '../../scripts/openapi/error-contract.js';

/**
 * Every reply an integration test receives is checked against the OpenAPI document: status, headers
 * and body. The document is the one the code builds now (test/openapi/document.test.ts separately
 * checks the committed file is that same document), so a read added in this tree is checked as soon
 * as it is in the table.
 */

// ajv-formats is CommonJS with `exports.default`; under ESM interop the function may sit one level down.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

export interface OpenApiReply {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

interface Checker {
  doc: OpenApiDocument;
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
}

let checker: Checker | undefined;

function load(): Checker {
  if (checker) return checker;
  // Through JSON, as the file is: what is checked is exactly what would be written.
  const doc = JSON.parse(JSON.stringify(buildOpenApi())) as OpenApiDocument;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc as object, 'openapi.json');
  checker = { doc, ajv, validators: new Map() };
  return checker;
}

const pointer = (parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

function validator(c: Checker, parts: string[]): ValidateFunction {
  const ref = `openapi.json#/${pointer(parts)}`;
  let v = c.validators.get(ref);
  if (!v) {
    v = c.ajv.compile({ $ref: ref });
    c.validators.set(ref, v);
  }
  return v;
}

function deref<T>(doc: OpenApiDocument, value: unknown): T {
  let v = value as { $ref?: string };
  while (v && typeof v.$ref === 'string') {
    v = v.$ref
      .slice(2)
      .split('/')
      .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<any>((node, key) => node?.[key], doc);
  }
  return v as T;
}

/** The path template of the document a concrete path (relative to /api/v1, query allowed) falls under. */
export function templateOf(method: string, path: string): string | undefined {
  const pathname = new URL(path, 'http://x').pathname;
  const route = routes().find((r) => r.method === method.toUpperCase() && matchPath(r.path, `${BASE_PATH}${pathname}`));
  if (route) return route.path.slice(BASE_PATH.length);
  // Operations described though no route takes them (GET and DELETE /mcp: $default answers their 405).
  const { paths } = load().doc;
  return Object.keys(paths).find(
    (t) => paths[t]?.[method.toLowerCase()] !== undefined && matchPath(`${BASE_PATH}${t}`, `${BASE_PATH}${pathname}`),
  );
}

let genericError: ValidateFunction | undefined;

/**
 * Compiles every response validator now. startTestApi() calls it before any request is in flight:
 * compiling lazily inside a burst of concurrent calls would block the event loop the in-process API
 * shares with the test, long enough to trip the budget store's timeout.
 */
export function warmOpenApiValidators(): void {
  const c = load();
  for (const [template, ops] of Object.entries(c.doc.paths)) {
    for (const [m, op] of Object.entries(ops)) {
      for (const [key, value] of Object.entries(op.responses)) {
        const ref = (value as { $ref?: string }).$ref;
        const response = deref<{ content?: Record<string, unknown> }>(c.doc, value);
        for (const type of Object.keys(response.content ?? {})) {
          validator(
            c,
            ref
              ? [
                  ...ref
                    .slice(2)
                    .split('/')
                    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~')),
                  'content',
                  type,
                  'schema',
                ]
              : ['paths', template, m, 'responses', key, 'content', type, 'schema'],
          );
        }
      }
    }
  }
  genericError ??= c.ajv.compile(standalone(errorSchema, 'output'));
}

function fail(where: string, problem: string, reply: OpenApiReply): never {
  throw new Error(`reply to ${where} does not match openapi.json: ${problem}\nstatus ${reply.status}, body: ${reply.text.slice(0, 500)}`);
}

/**
 * Throws unless the reply is one the document describes for this operation. Replies to a method and
 * path the document does not describe (unknown path: 404, other method: 405) must still be the
 * error body (docs/contract.md#error-body) with X-Request-Id.
 */
export function expectMatchesOpenApi(method: string, path: string, reply: OpenApiReply): void {
  const c = load();
  const m = method.toLowerCase();
  const template = templateOf(method, path);
  const where = `${method.toUpperCase()} ${path}`;
  const operation = template === undefined ? undefined : (c.doc.paths[template]?.[m] as { responses: Record<string, unknown> } | undefined);
  if (!operation) {
    if (template !== undefined && method.toUpperCase() === 'GET' && c.doc.paths[template] === undefined) {
      fail(where, `the document has no ${template}: run \`npm run openapi\`?`, reply);
    }
    if (!reply.headers.get('x-request-id')) fail(where, 'no X-Request-Id', reply);
    genericError ??= c.ajv.compile(standalone(errorSchema, 'output'));
    if (!genericError(reply.body)) fail(where, `not the error body: ${c.ajv.errorsText(genericError.errors)}`, reply);
    return;
  }
  const status = String(reply.status);
  const key = status in operation.responses ? status : 'default' in operation.responses ? 'default' : undefined;
  if (!key) fail(where, `status ${status} is not documented for ${m.toUpperCase()} ${template}`, reply);
  const response = deref<{ headers?: Record<string, unknown>; content?: Record<string, unknown> }>(c.doc, operation.responses[key]);

  for (const [name, value] of Object.entries(response.headers ?? {})) {
    const header = deref<{ required?: boolean; schema: Record<string, unknown> }>(c.doc, value);
    const raw = reply.headers.get(name);
    if (raw === null) {
      if (header.required) fail(where, `missing header ${name}`, reply);
      continue;
    }
    const typed = header.schema.type === 'integer' && /^-?\d+$/.test(raw) ? Number(raw) : raw;
    const check = c.validators.get(JSON.stringify(header.schema)) ?? c.ajv.compile(header.schema);
    c.validators.set(JSON.stringify(header.schema), check);
    if (!check(typed)) fail(where, `header ${name}: ${raw} (${c.ajv.errorsText(check.errors)})`, reply);
  }

  const base = ['paths', template as string, m, 'responses', key];
  if (!response.content) {
    if (reply.text !== '') fail(where, 'a body where the document states none', reply);
    return;
  }
  const type = (reply.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  if (!(type in response.content)) fail(where, `content-type ${type} is not documented`, reply);
  // A response component ($ref) is validated where it is defined, so its own $refs resolve there too.
  const ref = (operation.responses[key] as { $ref?: string }).$ref;
  const parts = ref
    ? [
        ...ref
          .slice(2)
          .split('/')
          .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~')),
        'content',
        type,
        'schema',
      ]
    : [...base, 'content', type, 'schema'];
  const check = validator(c, parts);
  if (!check(reply.body)) fail(where, c.ajv.errorsText(check.errors), reply);
}
