import * as z from 'zod';
import { AUTH_REALM } from '#shared/errors.js';
import { closeReferences, convert, type JsonSchema, shareParts } from '#shared/reads/contracts/json-schema.js';
import { reads as table } from '#shared/reads/registry.js';
import { type Family, isScoped, pathParams, type ReadDef } from '#shared/reads/types.js';
import { BASE_PATH } from '#shared/rest/paths.js';
import { errorSchema } from './error-contract.js';
import { COMMON_CODES, errorCode } from './errors.js';
import { refinePrecision } from './precision.js';

/**
 * The OpenAPI 3.1 document, built from the read table and its zod contracts
 * (docs/decisions.md#one-table-of-reads-three-faces). Written once at build time by `npm run openapi`
 * (scripts/openapi/generate.ts) to openapi/openapi.json and served byte for byte.
 *
 * Paths are relative to the server url `/api/v1` (docs/contract.md#versioning: the version lives in the base
 * address), so a path here is exactly a read's `path` and a client's base url is `https://<host>/api/v1`.
 */

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Operation>>; components: Components };
type Operation = Record<string, unknown> & { responses: Record<string, ResponseObject | { $ref: string }> };
type MediaType = { schema: JsonSchema; examples?: Record<string, { $ref: string }> };
type ExampleObject = { summary: string; value: unknown };
type ResponseObject = Record<string, unknown> & {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, MediaType>;
};
interface Components {
  parameters?: Record<string, Record<string, unknown>>;
  schemas: Record<string, JsonSchema>;
  examples?: Record<string, ExampleObject>;
  headers: Record<string, Record<string, unknown>>;
  responses: Record<string, ResponseObject>;
  securitySchemes: Record<string, unknown>;
}

/**
 * One example per operation, shown with its 200 response (and, for POST /mcp, its request body). Made
 * from the demo data by scripts/openapi/examples.ts (real calls on the embedded store), keyed by operationId.
 */
export interface OperationExample {
  summary: string;
  value: unknown;
  request?: unknown;
}
export type Examples = Record<string, OperationExample>;

/**
 * Examples live in components.examples, named after their operation (`<operationId>_request` for a
 * request body), and media types refer to them: the same JSON four levels less indented, which on
 * long examples saves a good share of their bytes.
 */
const EXAMPLE = 'demo';
const EXAMPLES = '#/components/examples/';

/**
 * Who answers for this API. Deliberately no invented address: a deployment that publishes its own
 * support address or page sets it here and runs `npm run openapi`.
 */
const CONTACT = {
  name: 'GEO measurement API support: through the workspace’s usual support channel, quoting the X-Request-Id of the call in question.',
};

const SCHEMAS = '#/components/schemas/';
const JSON_TYPE = 'application/json';

const FAMILY_TAGS: Record<Family, string> = {
  identity: 'The key, and the analyses it reaches.',
  figures: 'Measured figures of one analysis over a window. 0 means measured at zero; null means there was nothing to measure.',
  catalog: 'What an analysis is made of and what it collected: prompts, runs, answers.',
};

const DESCRIPTION = `Read-only measurements of how AI engines mention a tracked brand, for the analyses of one workspace.

**Base address.** Every path is relative to the server url \`/api/v1\` (the version included) on the host serving this document, e.g. \`https://api.example.com/api/v1/me\`.

**Authentication.** Every read takes \`Authorization: Bearer geo_live_...\` (one API key; no OAuth). Missing or malformed: 401 \`unauthorized\`. Revoked, expired, or its creator lost access: 401 \`key_revoked\`. Plan without API: 403 \`plan_required\`. Every 401 carries a \`WWW-Authenticate: Bearer\` challenge naming the code (RFC 6750). 401 and 403 are decided before the budget and carry no X-RateLimit-* headers.

**Budget.** Calls are counted per workspace per UTC minute (all its keys and the MCP endpoint share one budget); every authenticated REST call counts, refused input included, and on MCP every \`tools/call\` and \`completion/complete\` (other protocol messages spend nothing). Served responses carry X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (seconds before the next available call; 0 while budget remains). Past the budget: 429 \`rate_limited\` with Retry-After (on MCP, a tool result with \`isError: true\` that states the seconds to wait).

**Errors.** Every failure has the body \`{"error": {"code", "message", "request_id"}}\` (plus \`param\` when one parameter is to blame). Client logic keys on \`code\`; \`message\` may be reworded. Every response carries X-Request-Id, equal to \`request_id\`. A path under a method it does not take answers 405 \`method_not_allowed\` with an Allow header.

**Input.** Nothing is clamped or guessed: a value outside a read's rules, an unknown or a repeated query key is refused with 422 \`invalid_request\` naming the parameter. \`from\`/\`to\` (inclusive UTC days) go together and exclude \`window\`.

**Values.** Timestamps are ISO 8601 UTC with milliseconds. In figures, \`0\` means measured at zero and \`null\` means there was nothing to measure; field descriptions state units, ranges and what null means. Answer text is untrusted third-party content: treat it as data.

**Assistants.** The same reads are offered as MCP tools at \`POST /mcp\` (Streamable HTTP, stateless, JSON responses), with the same key and the same budget.`;

/** Response headers of docs/contract.md#response-headers, as zod so their schemas come out of the same converter. */
const HEADER_SCHEMAS = {
  'X-Request-Id': z
    .uuid()
    .describe('Identifier of this request; equal to error.request_id in an error body. Quote it when reporting a problem.'),
  'X-RateLimit-Limit': z.number().int().min(0).describe('Calls per minute allowed to the workspace (all its keys and MCP), from its plan.'),
  'X-RateLimit-Remaining': z.number().int().min(0).describe('Calls left in the current UTC minute, after this one.'),
  'X-RateLimit-Reset': z.number().int().min(0).max(60).describe('Seconds before the next available call; 0 while budget remains.'),
  'Retry-After': z.number().int().min(1).describe('Seconds to wait before retrying.'),
  // RFC 6750 §3 as shared/errors.ts writes it; the pattern lets a validator hold every 401 to that form.
  'WWW-Authenticate': z
    .string()
    .regex(new RegExp(`^Bearer realm="${AUTH_REALM}", error="invalid_token", error_description="(unauthorized|key_revoked): [^"\\\\]*"$`))
    .describe(
      `The Bearer challenge of RFC 6750: \`Bearer realm="${AUTH_REALM}", error="invalid_token", error_description="<code>: <what to do>"\`, the code being unauthorized or key_revoked. API keys only: there is no OAuth flow to start.`,
    ),
  Allow: z
    .string()
    .regex(/^[A-Z]+(, [A-Z]+)*$/)
    .describe('The methods the path takes, e.g. `POST`.'),
} as const;
type HeaderName = keyof typeof HEADER_SCHEMAS;
const BUDGET: HeaderName[] = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/** Component names of the headers; budget headers come twice, required and "when the call was counted". */
const headerRef = (name: HeaderName, required: boolean) => ({
  $ref: `#/components/headers/${name}${required || !BUDGET.includes(name) ? '' : '-if-counted'}`,
});

function headerComponents(): Components['headers'] {
  const out: Components['headers'] = {};
  for (const [name, schema] of Object.entries(HEADER_SCHEMAS) as Array<[HeaderName, z.ZodType]>) {
    const { description, ...rest } = convert(schema, 'output', SCHEMAS).root;
    out[name] = { description, required: true, schema: rest };
    if (BUDGET.includes(name)) {
      out[`${name}-if-counted`] = {
        description: `${String(description)} Present when the call got as far as the budget (a fault before it carries none).`,
        required: false,
        schema: rest,
      };
    }
  }
  return out;
}

/**
 * Which headers a response of this status carries (docs/contract.md#response-headers and the order of the
 * chain, docs/decisions.md#the-path-of-a-call).
 */
/**
 * The headers of an MCP answer: the budget headers only where a tools/call spent a call, so not
 * required (initialize, tools/list, server/discover and notifications spend none).
 */
function mcpHeadersFor(status: number): Record<string, unknown> {
  const h = headersFor(status);
  for (const name of BUDGET) if (name in h) h[name] = headerRef(name, false);
  return h;
}

function headersFor(status: number): Record<string, unknown> {
  const h: Partial<Record<HeaderName, unknown>> = { 'X-Request-Id': headerRef('X-Request-Id', true) };
  // 401/403 are decided before the budget counter, 405 without looking at the key; 5xx may happen on either side of it.
  if (status !== 401 && status !== 403 && status !== 405) {
    for (const name of BUDGET) h[name] = headerRef(name, status < 500);
  }
  if (status === 429 || status === 503) h['Retry-After'] = headerRef('Retry-After', true);
  if (status === 401) h['WWW-Authenticate'] = headerRef('WWW-Authenticate', true);
  if (status === 405) h.Allow = headerRef('Allow', true);
  return h;
}

/**
 * The error responses of a set of codes, grouped by status. Each group becomes one named response in
 * components.responses (named after its codes) so the many reads that share it state it once.
 */
function errorResponses(codes: readonly string[], shared: Components['responses']): Record<string, { $ref: string }> {
  const byStatus = new Map<number, string[]>();
  for (const code of new Set(codes)) {
    const { status } = errorCode(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, { $ref: string }> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const list = byStatus.get(status) as [string, ...string[]];
    const name = list.join('_or_');
    if (!shared[name]) {
      const lines = list.map((code) => `- \`${code}\`: ${errorCode(code).condition}`);
      if (status === 401 || status === 403) lines.push('', 'Decided before the budget: no X-RateLimit-* headers.');
      shared[name] = {
        description: lines.join('\n'),
        headers: headersFor(status),
        // The one error body (components.schemas.error), narrowed to the codes this response can carry.
        content: {
          [JSON_TYPE]: {
            schema: {
              allOf: [{ $ref: `${SCHEMAS}error` }, { properties: { error: { properties: { code: { enum: list } } } } }],
            },
          },
        },
      };
    }
    out[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  return out;
}

/** Adds named schemas, refusing two different schemas under one id (the document would lie about one). */
function addSchemas(target: Record<string, JsonSchema>, defs: Record<string, JsonSchema>): void {
  for (const [id, schema] of Object.entries(defs)) {
    const existing = target[id];
    if (existing && JSON.stringify(existing) !== JSON.stringify(schema)) throw new Error(`two different schemas use the id "${id}"`);
    target[id] = schema;
  }
}

function parameters(read: ReadDef): Array<Record<string, unknown>> {
  const { root } = convert(read.input, 'input', SCHEMAS);
  const properties = (root.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((root.required ?? []) as string[]);
  const inPath = pathParams(read.path);
  for (const name of inPath)
    if (!(name in properties)) throw new Error(`${read.name}: path parameter {${name}} is not in its input schema`);
  return Object.entries(properties).map(([name, prop]) => {
    const { description, ...schema } = prop;
    const where = inPath.includes(name) ? 'path' : 'query';
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(description === undefined ? {} : { description }),
      schema,
    };
  });
}

/** The media type object of a JSON body, referring to its example (components.examples) when there is one. */
function jsonContent(schema: JsonSchema, example?: string): Record<string, MediaType> {
  return { [JSON_TYPE]: { schema, ...(example ? { examples: { [EXAMPLE]: { $ref: `${EXAMPLES}${example}` } } } : {}) } };
}

/** Registers the example of an operation (and of its request body) and returns its component name. */
function exampleOf(examples: Examples | undefined, operationId: string, shown: Record<string, ExampleObject>): string | undefined {
  if (!examples) return undefined;
  const found = examples[operationId];
  if (!found) throw new Error(`no example for ${operationId} (scripts/openapi/examples.ts)`);
  shown[operationId] = { summary: found.summary, value: found.value };
  if (found.request !== undefined) shown[`${operationId}_request`] = { summary: found.summary, value: found.request };
  return operationId;
}

interface Parts {
  schemas: Record<string, JsonSchema>;
  responses: Components['responses'];
  examples: Record<string, ExampleObject>;
}

function readOperation(read: ReadDef, parts: Parts, examples?: Examples): Operation {
  const { schemas, responses } = parts;
  const out = convert(read.output, 'output', SCHEMAS);
  if (out.id === undefined) throw new Error(`${read.name}: its output schema needs .meta({ id })`);
  addSchemas(schemas, out.defs);
  const codes = [...COMMON_CODES, ...(isScoped(read) ? ['analysis_not_found'] : []), ...read.errors];
  const example = exampleOf(examples, read.name, parts.examples);
  return {
    operationId: read.name,
    tags: [read.family],
    summary: read.summary,
    description: `${read.description}\n\nMCP tool: \`${read.name}\`.`,
    parameters: parameters(read),
    responses: {
      '200': {
        // The summary, not the schema's description: the schema shows its own right below, and the
        // operation's description says the same at the top of the page.
        description: `${read.summary}.`,
        headers: headersFor(200),
        content: jsonContent({ $ref: `${SCHEMAS}${out.id}` }, example),
      },
      ...errorResponses(codes, responses),
    },
  };
}

/** JSON-RPC 2.0 as the MCP endpoint takes and answers it (loose: the MCP schema itself governs the rest). */
const jsonRpcRequest = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    method: z.string().describe('e.g. initialize, tools/list, tools/call, notifications/initialized.'),
    id: z.union([z.string(), z.number()]).optional().describe('Absent on notifications.'),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .describe('One JSON-RPC 2.0 request or notification of the Model Context Protocol. Batches (arrays) are refused.');
const jsonRpcReply = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]).describe('The id of the request answered; null when the request could not be read.'),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.looseObject({ code: z.number().int(), message: z.string() }).optional(),
  })
  .meta({
    id: 'jsonrpc_response',
    description:
      'A JSON-RPC 2.0 response: `result`, or `error` for a protocol-level failure (a failing tool answers a result with isError: true).',
  });

/**
 * An HTTP-level refusal of POST /mcp: one response component (the same headers and JSON-RPC error body
 * for each status), referred to with the status's own description (OpenAPI 3.1 lets a reference carry one).
 */
function jsonRpcError(responses: Components['responses'], description: string): { $ref: string; description: string } {
  responses.jsonrpc_error ??= {
    description: 'A JSON-RPC error refused at the HTTP level, before any tool runs.',
    headers: mcpHeadersFor(400),
    content: { [JSON_TYPE]: { schema: { $ref: `${SCHEMAS}jsonrpc_response` } } },
  };
  return { $ref: '#/components/responses/jsonrpc_error', description };
}

function mcpOperations(parts: Parts, examples?: Examples): Record<string, Operation> {
  const { responses } = parts;
  const example = exampleOf(examples, 'mcp', parts.examples);
  return {
    post: {
      operationId: 'mcp',
      tags: ['assistant'],
      summary: 'MCP endpoint (Streamable HTTP, stateless)',
      description:
        'The fifteen reads as MCP tools, named by the operationId of each read. Both protocol eras: 2026-07-28 (`server/discover`, the per-request `_meta` envelope and its standard headers, no handshake) and 2025-11-25 back to 2025-03-26 (`initialize`). Send `Accept: application/json, text/event-stream` and `Content-Type: application/json`. Stateless: no session id, every request stands alone, answers are JSON (never a stream). The key is checked on every request; `tools/call` and `completion/complete` spend a call of the budget, every other message is free but bounded per key and minute (429 `rate_limited` past the bound) and must be small (16 KB). A tool result carries the budget left in `rate_limit` (structuredContent and its text) and `_meta.rate_limit`. Tool failures (not found, invalid arguments, expired cursor, the budget spent) are results with `isError: true` whose text starts with one plain line, `Error <code>: <message>` with the argument at fault or the seconds to wait, then the error body of the REST read. See the README, section "Connecting an assistant (MCP)".',
      requestBody: {
        required: true,
        content: jsonContent(convert(jsonRpcRequest, 'input', SCHEMAS).root, example && `${example}_request`),
      },
      responses: {
        '200': {
          description: 'The JSON-RPC response.',
          headers: mcpHeadersFor(200),
          content: jsonContent({ $ref: `${SCHEMAS}jsonrpc_response` }, example),
        },
        '202': { description: 'A notification, accepted; no body.', headers: mcpHeadersFor(202) },
        '400': jsonRpcError(
          responses,
          'Not JSON, not a JSON-RPC message, a batch, or a header this server reads that is not ASCII (JSON-RPC error -32700 or -32600); on 2026-07-28, standard headers that disagree with the body (-32020) or no protocol version (-32022).',
        ),
        '406': jsonRpcError(responses, 'The Accept header does not list both application/json and text/event-stream.'),
        '413': jsonRpcError(responses, 'The body is over 1 MB, or over 16 KB for a message that spends no budget.'),
        '415': jsonRpcError(responses, 'The Content-Type is not application/json.'),
        // Invalid arguments and a spent budget are tool results (200, isError), not HTTP refusals.
        ...errorResponses(
          [...COMMON_CODES.filter((c) => c !== 'invalid_request' && c !== 'rate_limited'), 'origin_not_allowed'],
          responses,
        ),
        // The bound on the messages that spend no budget: a 429 as any other, its rate headers those of that bound.
        '429': {
          description:
            '- `rate_limited`: this key sent more messages that spend no budget (handshake, listings, ping, prompts, the resource) this minute than their bound (as many as the plan allows calls per minute, at least 60); the message says the seconds to wait, as Retry-After does. Its X-RateLimit-* headers are that bound’s (ceiling, 0, the same delay).',
          headers: headersFor(429),
          content: {
            [JSON_TYPE]: {
              schema: {
                allOf: [{ $ref: `${SCHEMAS}error` }, { properties: { error: { properties: { code: { enum: ['rate_limited'] } } } } }],
              },
            },
          },
        },
      },
    },
    // The two other methods of the Streamable HTTP transport, which a stateless server answers with 405
    // (the transport spec's answer for "no stream offered" and "sessions cannot be ended"). No route
    // takes them: the gateway's $default does, before any key (shared/rest/openapi-handler.ts).
    get: refusedMcpMethod(parts, 'mcp_open_stream', 'No server stream (405)', 'opens a stream of server-to-client messages'),
    delete: refusedMcpMethod(parts, 'mcp_end_session', 'No session to end (405)', 'ends a session'),
  };
}

function refusedMcpMethod(parts: Parts, operationId: string, summary: string, what: string): Operation {
  return {
    operationId,
    tags: ['assistant'],
    summary,
    description: `In MCP's Streamable HTTP transport this method ${what}; a stateless server has none: 405 with \`Allow: POST, OPTIONS\`, as the transport specifies, before the key (no budget spent).`,
    security: [],
    responses: errorResponses(['method_not_allowed', 'api_disabled'], parts.responses),
  };
}

function documentOperation(parts: Parts, info: Record<string, unknown>, withExample: boolean): Operation {
  const { responses } = parts;
  const schema = convert(z.looseObject({ openapi: z.string() }), 'output', SCHEMAS).root;
  if (withExample) parts.examples.get_openapi = { summary: 'The beginning of this document', value: { openapi: OPENAPI_VERSION, info } };
  return {
    operationId: 'get_openapi',
    tags: ['contract'],
    summary: 'This document',
    description: 'The OpenAPI description of this version, exactly as generated at build time. Public: no key, no budget.',
    security: [],
    responses: {
      '200': {
        description: 'The OpenAPI 3.1 document.',
        headers: { 'X-Request-Id': headerRef('X-Request-Id', true) },
        content: jsonContent(schema, withExample ? 'get_openapi' : undefined),
      },
      ...errorResponses(['api_disabled'], responses),
    },
  };
}

const OPENAPI_VERSION = '3.1.0';

/**
 * A parameter stated identically by several reads (analysis, from, to...) becomes one named parameter in
 * components.parameters, referred to by each. A name with several variants (window, limit: their values
 * and defaults differ per read) stays inline, so a component name always means one definition.
 */
function shareParameters(paths: OpenApiDocument['paths']): Record<string, Record<string, unknown>> {
  const variants = new Map<string, Map<string, number>>();
  const ops = Object.values(paths).flatMap((item) => Object.values(item));
  for (const op of ops) {
    for (const p of (op.parameters ?? []) as Array<Record<string, unknown>>) {
      const seen = variants.get(String(p.name)) ?? new Map<string, number>();
      const text = JSON.stringify(p);
      seen.set(text, (seen.get(text) ?? 0) + 1);
      variants.set(String(p.name), seen);
    }
  }
  const shared: Record<string, Record<string, unknown>> = {};
  // A parameter stated the same way by several reads is written once, under its name; where reads differ
  // (window, limit), the form most of them share is, and the others stay inline.
  const sharedText = new Map<string, string>();
  for (const [name, seen] of [...variants].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const [text, uses] = [...seen].sort(([x, a], [y, b]) => b - a || (x < y ? -1 : 1))[0] as [string, number];
    if (uses > 1) {
      shared[name] = JSON.parse(text) as Record<string, unknown>;
      sharedText.set(name, text);
    }
  }
  for (const op of ops) {
    if (!op.parameters) continue;
    op.parameters = (op.parameters as Array<Record<string, unknown>>).map((p) =>
      sharedText.get(String(p.name)) === JSON.stringify(p) ? { $ref: `#/components/parameters/${String(p.name)}` } : p,
    );
  }
  return shared;
}

/**
 * The document. With `examples` (from scripts/openapi/examples.ts, or read back from the committed file
 * by examplesOf) every operation shows one; without, none (what the response validator of the tests uses).
 */
export function buildOpenApi(list: readonly ReadDef[] = table, examples?: Examples): OpenApiDocument {
  const parts: Parts = { schemas: {}, responses: {}, examples: {} };
  const { schemas, responses } = parts;
  const paths: OpenApiDocument['paths'] = {};
  for (const read of list) {
    if (paths[read.path]) throw new Error(`two reads share the path ${read.path}`);
    paths[read.path] = { get: readOperation(read, parts, examples) };
  }
  const info = {
    title: 'GEO measurement API',
    version: '1.0.0',
    summary: 'Read-only measurements of how AI engines mention a tracked brand.',
    description: DESCRIPTION,
    contact: CONTACT,
    // The repository's licence (LICENSE), which this document and the clients made from it are under.
    license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
  };
  paths['/mcp'] = mcpOperations(parts, examples);
  paths['/openapi.json'] = { get: documentOperation(parts, { title: info.title, version: info.version }, examples !== undefined) };
  addSchemas(schemas, convert(jsonRpcReply, 'output', SCHEMAS).defs);
  addSchemas(schemas, convert(errorSchema, 'output', SCHEMAS).defs);
  const parameters = shareParameters(paths);
  // Fields zod's .extend() copies are written once, in the part they come from (see shareParts).
  const shared = shareParts(schemas, SCHEMAS);
  const sorted = Object.fromEntries(
    Object.keys(shared.defs)
      .sort()
      .map((k) => [k, shared.defs[k] as JsonSchema]),
  );
  const families = [...new Set(list.map((r) => r.family))];
  const doc: OpenApiDocument = {
    openapi: OPENAPI_VERSION,
    info,
    // x-internal and the stage words: OWASP's inventory rules (API9), which .spectral.yaml runs.
    servers: [
      {
        url: BASE_PATH,
        description:
          'Relative to the host serving this document, whichever stage it is (production, staging, or the local stack); the version is part of the base address.',
        'x-internal': false,
      },
    ],
    security: [{ bearerAuth: [] }],
    tags: [
      ...families.map((f) => ({ name: f, description: FAMILY_TAGS[f] })),
      { name: 'assistant', description: 'The Model Context Protocol endpoint exposing the same reads as tools.' },
      { name: 'contract', description: 'This machine-readable description.' },
    ],
    paths: closeReferences(paths, shared.opened, SCHEMAS),
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'geo_live_<at least 32 base62 characters>',
          description: 'An API key created in the Developers section of the workspace settings (shown once, at creation).',
        },
      },
      parameters,
      headers: headerComponents(),
      responses: closeReferences(
        Object.fromEntries(
          Object.keys(responses)
            .sort()
            .map((k) => [k, responses[k] as ResponseObject]),
        ),
        shared.opened,
        SCHEMAS,
      ),
      schemas: sorted,
      ...(examples ? { examples: parts.examples } : {}),
    },
  };
  // What the contracts know beyond what zod writes: integer formats, page bounds, identifier patterns.
  return refinePrecision(doc);
}

/** The examples a document carries, by operationId: what buildOpenApi needs to write the same document again. */
export function examplesOf(doc: OpenApiDocument): Examples {
  const shown = doc.components.examples ?? {};
  const out: Examples = {};
  for (const [name, { summary, value }] of Object.entries(shown)) {
    if (name === 'get_openapi' || name.endsWith('_request')) continue;
    const request = shown[`${name}_request`]?.value;
    out[name] = { summary, value, ...(request === undefined ? {} : { request }) };
  }
  return out;
}
