import { UUID_PATTERN } from '#shared/formats.js';

/**
 * What the zod contracts know but z.toJSONSchema does not write, added to the built document so that
 * clients generated in any language pick the right types (docs/openapi.md#precision):
 *
 * - every integer gets a `format`: `int32` when the schema bounds it within 32 bits (limit, offset, seconds,
 *   days, ranks), `int64` otherwise (counts and totals, which the contract does not bound);
 * - the `items` of a page whose read takes a `limit` get `maxItems`, the largest `limit` the read accepts;
 * - a string of a fixed-length format gets that length as `maxLength`: a UUID 36 characters, a day
 *   (`YYYY-MM-DD`) 10, a timestamp (ISO 8601 UTC with milliseconds, the one form the service writes) 24;
 * - the identifier path parameters (`group`, `run`, `answer`) get the pattern and length of the values that
 *   can name something: a UUID in either case, or the reserved word the read takes (`none`, `latest`).
 *   Any other value answers 404 `not_found` (docs/contract.md#endpoints), which the pattern tells a client
 *   before it calls. `analysis` stays open: a slug has no length or alphabet in the contract.
 */

type Json = Record<string, unknown>;

const INT32_MAX = 2_147_483_647;
const INT32_MIN = -2_147_483_648;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const typesOf = (schema: Json): unknown[] => (Array.isArray(schema.type) ? schema.type : [schema.type]);

/** int32 when both bounds are known and fit; int64 otherwise. */
function integerFormat(schema: Json): 'int32' | 'int64' {
  const { minimum, maximum } = schema;
  return typeof minimum === 'number' && typeof maximum === 'number' && minimum >= INT32_MIN && maximum <= INT32_MAX ? 'int32' : 'int64';
}

/** The length of every value of a string format the service writes in one form only. */
const FORMAT_LENGTH: Record<string, number> = { uuid: 36, date: 10, 'date-time': 24 };

/**
 * Adds a format to every integer schema of the tree, and its length to every string of a fixed-length
 * format (examples left untouched: they are values, not schemas).
 */
function formatScalars(node: unknown, key?: string): void {
  if (Array.isArray(node)) {
    for (const item of node) formatScalars(item);
    return;
  }
  if (!isObject(node) || key === 'examples' || key === 'example') return;
  if (typesOf(node).includes('integer') && node.format === undefined) node.format = integerFormat(node);
  const length = typeof node.format === 'string' ? FORMAT_LENGTH[node.format] : undefined;
  if (length !== undefined && typesOf(node).includes('string') && node.maxLength === undefined) node.maxLength = length;
  for (const [k, v] of Object.entries(node)) formatScalars(v, k);
}

/** The reserved word an identifier path parameter takes besides a UUID (docs/contract.md#the-fifteen-reads). */
const RESERVED: Record<string, string | undefined> = { group: 'none', run: 'latest', answer: undefined };
const UUID_LENGTH = 36;
const UUID_SOURCE = UUID_PATTERN.source.replace(/^\^|\$$/g, '');
// The shared pattern is case-insensitive by flag; JSON Schema patterns carry no flags, so both cases are written.
const UUID_EITHER_CASE = UUID_SOURCE.replaceAll('[0-9a-f]', '[0-9a-fA-F]');

function identifierParameter(parameter: Json): void {
  const name = String(parameter.name);
  if (parameter.in !== 'path' || !(name in RESERVED) || !isObject(parameter.schema)) return;
  const reserved = RESERVED[name];
  parameter.schema.pattern = reserved ? `^(${UUID_EITHER_CASE}|${reserved})$` : `^${UUID_EITHER_CASE}$`;
  parameter.schema.minLength = reserved ? reserved.length : UUID_LENGTH;
  parameter.schema.maxLength = UUID_LENGTH;
}

function resolve(doc: Json, ref: string): Json | undefined {
  let at: unknown = doc;
  for (const part of ref.replace(/^#\//, '').split('/'))
    at = isObject(at) ? at[part.replaceAll('~1', '/').replaceAll('~0', '~')] : undefined;
  return isObject(at) ? at : undefined;
}

/** The page schema of a read that takes `limit`: its `items` hold at most the largest limit. */
function boundPage(doc: Json, operation: Json): void {
  const parameters = ((operation.parameters ?? []) as Json[]).map((p) => (typeof p.$ref === 'string' ? (resolve(doc, p.$ref) ?? p) : p));
  const limit = parameters.find((p) => p.name === 'limit' && p.in === 'query');
  const max = isObject(limit?.schema) ? limit.schema.maximum : undefined;
  if (typeof max !== 'number') return;
  const ok = (operation.responses as Json)['200'];
  const ref = isObject(ok) ? (((ok.content as Json)?.['application/json'] as Json)?.schema as Json)?.$ref : undefined;
  const page = typeof ref === 'string' ? resolve(doc, ref) : undefined;
  const items = isObject(page?.properties) ? (page.properties as Json).items : undefined;
  if (!isObject(items) || items.type !== 'array') throw new Error(`a read taking limit has no items array: ${String(ref)}`);
  const previous = items.maxItems;
  if (previous !== undefined && previous !== max) throw new Error(`${String(ref)}: two reads bound its items differently`);
  items.maxItems = max;
}

/** Applies the precision rules above to a built document, in place, and returns it. */
export function refinePrecision<T extends Json>(doc: T): T {
  const paths = doc.paths as Record<string, Record<string, Json>>;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      for (const parameter of (operation.parameters ?? []) as Json[]) identifierParameter(parameter);
      boundPage(doc, operation);
    }
  }
  const components = doc.components as Json;
  for (const parameter of Object.values((components.parameters ?? {}) as Record<string, Json>)) identifierParameter(parameter);
  formatScalars(doc.paths);
  formatScalars(components.schemas);
  formatScalars(components.parameters);
  formatScalars(components.headers);
  formatScalars(components.responses);
  return doc;
}
