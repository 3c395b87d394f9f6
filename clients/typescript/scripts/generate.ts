/**
 * Writes the package's generated sources from openapi/openapi.json: `src/schema.ts` (the document's types,
 * by openapi-typescript) and `src/operations.ts` (the table of reads the client and the CLI are built on:
 * method name, path, parameters, how the read pages). Run by `npm run build` (so `npm pack` always ships
 * types made from the document it sits next to) and by `npm run openapi` at the repository root;
 * test/clients/typescript-generated.test.ts fails when the committed files are not what this makes.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { OpenAPI3 } from 'openapi-typescript';
import openapiTS, { astToString } from 'openapi-typescript';

/** Relative to the repository root. */
export const TS_CLIENT_SCHEMA_FILE = 'clients/typescript/src/schema.ts';
export const TS_CLIENT_OPERATIONS_FILE = 'clients/typescript/src/operations.ts';

const HEADER = '// Generated from openapi/openapi.json by clients/typescript/scripts/generate.ts. Do not edit.\n';

// Codes answered in front of the read functions (the local adapter, API Gateway), which the document does
// not list per operation; docs/errors.md describes them.
const FRONT_DOOR_CODES = ['malformed_request', 'payload_too_large', 'headers_too_large'];

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: { type?: string; enum?: string[]; maximum?: number; minimum?: number; default?: unknown };
}

type Doc = {
  paths: Record<string, Record<string, { operationId?: string; summary?: string; parameters?: Array<Parameter | { $ref: string }> }>>;
  components: { parameters: Record<string, Parameter>; responses: Record<string, unknown>; schemas: Record<string, unknown> };
};

const camel = (snake: string): string => snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function resolveParameter(doc: Doc, p: Parameter | { $ref: string }): Parameter {
  if ('$ref' in p) {
    const name = p.$ref.replace('#/components/parameters/', '');
    const found = doc.components.parameters[name];
    if (!found) throw new Error(`unresolved parameter ${p.$ref}`);
    return found;
  }
  return p;
}

/** Every `error.code` enum value the document's responses list, in the order first met. */
function errorCodes(doc: Doc): string[] {
  const codes: string[] = [];
  const walk = (node: unknown, underCode: boolean): void => {
    if (Array.isArray(node)) {
      for (const n of node) walk(n, underCode);
      return;
    }
    if (!node || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === 'enum' && underCode && Array.isArray(v)) {
        for (const c of v) if (typeof c === 'string' && !codes.includes(c)) codes.push(c);
      } else walk(v, k === 'code' || (underCode && k !== 'properties'));
    }
  };
  walk(doc.components.responses, false);
  return codes;
}

interface Read {
  name: string;
  operationId: string;
  summary: string;
  path: string;
  params: Array<{
    name: string;
    in: 'path' | 'query';
    required: boolean;
    type: 'string' | 'integer';
    enum?: string[];
    description: string;
  }>;
  paging: 'cursor' | 'offset' | 'single' | null;
  rows: 'items' | 'points' | null;
  maxLimit: number | null;
}

function refName(schema: unknown): string | undefined {
  const ref = (schema as { $ref?: string } | undefined)?.$ref;
  return ref?.replace('#/components/schemas/', '');
}

export function reads(doc: Doc): Read[] {
  const out: Read[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const op = item.get as
      | (Doc['paths'][string][string] & { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> })
      | undefined;
    if (!op?.operationId) continue;
    const ok = op.responses?.['200']?.content?.['application/json']?.schema;
    const schemaName = refName(ok);
    // Only the reads: operations whose answer is one of the read schemas (not the document itself).
    if (!schemaName || !/\bMCP tool: `/.test(String((op as { description?: string }).description ?? ''))) continue;
    const schema = doc.components.schemas[schemaName] as { properties?: Record<string, unknown> };
    const params = (op.parameters ?? []).map((p) => resolveParameter(doc, p));
    const names = params.map((p) => p.name);
    const limit = params.find((p) => p.name === 'limit');
    const props = schema.properties ?? {};
    out.push({
      name: camel(op.operationId),
      operationId: op.operationId,
      summary: op.summary ?? '',
      path,
      params: params.map((p) => ({
        name: p.name,
        in: p.in === 'path' ? 'path' : 'query',
        required: p.required === true,
        type: p.schema?.type === 'integer' ? 'integer' : 'string',
        ...(p.schema?.enum ? { enum: p.schema.enum } : {}),
        description: p.description ?? '',
      })),
      paging: !('items' in props) ? null : names.includes('cursor') ? 'cursor' : names.includes('offset') ? 'offset' : 'single',
      rows: 'items' in props ? 'items' : 'points' in props ? 'points' : null,
      maxLimit: limit?.schema?.maximum ?? null,
    });
  }
  return out;
}

function operationsModule(doc: Doc): string {
  const list = reads(doc);
  const codes = [...errorCodes(doc), ...FRONT_DOOR_CODES];
  const lines: string[] = [HEADER];
  lines.push("import type { CallOptions, ReadParams, ReadResult } from './types.js';", '');
  lines.push("/** Every code an error body of the API can carry: the contract's, then those answered before any route. */");
  lines.push(`export const API_ERROR_CODES = ${JSON.stringify(codes)} as const;`, '');
  lines.push('/** The reads, in the order of the document: what the client methods and the CLI are made from. */');
  lines.push(
    `export const OPERATIONS = ${JSON.stringify(Object.fromEntries(list.map((r) => [r.name, { ...r, name: undefined }])), null, 2)} as const;`,
  );
  lines.push('', '/** One method per read, named as its MCP tool in camelCase. */', 'export interface ReadMethods {');
  for (const r of list) {
    const required = r.params.some((p) => p.required);
    lines.push(`  /** ${r.summary}: \`GET ${r.path}\` (MCP tool \`${r.operationId}\`). */`);
    lines.push(
      `  ${r.name}(params${required ? '' : '?'}: ReadParams<'${r.name}'>, options?: CallOptions): Promise<ReadResult<'${r.name}'>>;`,
    );
  }
  lines.push('}', '');
  return lines.join('\n');
}

/** The two generated files, by path relative to the repository root. */
export async function generatedSources(doc: unknown): Promise<Record<string, string>> {
  const ast = await openapiTS(doc as OpenAPI3, { alphabetize: true });
  return {
    [TS_CLIENT_SCHEMA_FILE]: `${HEADER}\n${astToString(ast)}`,
    [TS_CLIENT_OPERATIONS_FILE]: operationsModule(doc as Doc),
  };
}

const root = fileURLToPath(new URL('../../../', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const doc = JSON.parse(await readFile(`${root}openapi/openapi.json`, 'utf8'));
  for (const [file, content] of Object.entries(await generatedSources(doc))) {
    // Unchanged files are left alone, so a build never rewrites a source another process is reading.
    const before = await readFile(`${root}${file}`, 'utf8').catch(() => null);
    if (before === content) continue;
    await writeFile(`${root}${file}`, content);
    console.log(`wrote ${file} (${Buffer.byteLength(content)} bytes)`);
  }
}
