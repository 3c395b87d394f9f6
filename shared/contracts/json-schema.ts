import * as z from 'zod';

/** A JSON Schema object as z.toJSONSchema writes it (draft 2020-12, which OpenAPI 3.1 uses as is). */
export type JsonSchema = Record<string, unknown>;

export interface Converted {
  /** The schema itself, with named sub-schemas replaced by references into `defs`. */
  root: JsonSchema;
  /** Sub-schemas carrying `.meta({ id })`, by id; the root's own id is among them when it has one. */
  defs: Record<string, JsonSchema>;
  /** The root's `.meta({ id })`, if any. */
  id: string | undefined;
}

/**
 * zod → JSON Schema, once for every face. A schema with `.meta({ id })` comes out as `$ref` + `$defs`;
 * this splits that into the schema and its named parts, and rewrites references with `refPrefix`
 * ('#/components/schemas/' for OpenAPI, '#/$defs/' for a self-contained MCP schema).
 */
export function convert(schema: z.ZodType, io: 'input' | 'output', refPrefix: string): Converted {
  const raw = z.toJSONSchema(schema, { io, unrepresentable: 'throw' }) as JsonSchema;
  const text = JSON.stringify(tidy(raw)).replaceAll('"#/$defs/', `"${refPrefix}`);
  const { $schema: _schema, $defs, ...rest } = JSON.parse(text) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  const defs = { ...($defs ?? {}) };
  const id = (z.globalRegistry.get(schema) as { id?: string } | undefined)?.id;
  const root = id !== undefined && rest.$ref === `${refPrefix}${id}` ? (defs[id] as JsonSchema) : rest;
  return { root, defs, id };
}

const isNull = (s: unknown): boolean => {
  const o = s as JsonSchema;
  return typeof o === 'object' && o !== null && o.type === 'null' && Object.keys(o).length === 1;
};

/**
 * The nullable form as readers see it. zod writes `.nullable().describe(d)` as `{anyOf: [X, {type: null}],
 * description: d}`, and renderers (Redoc, checked in headless Chromium) then show X's own description
 * (the generic "ISO 8601 UTC timestamp...") instead of the field's. So:
 * - an inline X of one type becomes `{type: [T, "null"], ...X, description}`: one schema, the field's
 *   description on it ("string or null" in Redoc); an enum (or const) gets null among its values;
 * - a named X (`$ref`) keeps the anyOf, with the field's description also on the reference itself,
 *   where Redoc reads it.
 */
function nullable(node: JsonSchema): JsonSchema {
  const { anyOf, ...outer } = node;
  if (!Array.isArray(anyOf) || anyOf.length !== 2 || !isNull(anyOf[1]) || isNull(anyOf[0])) return node;
  const inner = anyOf[0] as JsonSchema;
  const description = outer.description ?? inner.description;
  if (typeof inner.$ref === 'string') {
    return outer.description === undefined ? node : { ...outer, anyOf: [{ $ref: inner.$ref, description }, { type: 'null' }] };
  }
  if (typeof inner.type !== 'string' || 'anyOf' in inner || 'oneOf' in inner || 'allOf' in inner) return node;
  const { const: constant, enum: values, ...rest } = inner;
  const choices = Array.isArray(values) ? [...values, null] : constant !== undefined ? [constant, null] : undefined;
  return {
    ...rest,
    ...outer,
    type: [inner.type, 'null'],
    ...(choices ? { enum: choices } : {}),
    ...(description === undefined ? {} : { description }),
  };
}

/** zod's `.int()` states JavaScript's safe-integer range as bounds; as documentation they are noise. */
const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * Formats every JSON Schema validator and generator knows. zod writes its own regular expression beside
 * them (a date's alone is 250 characters, repeated on every date field); the format says the same. Not
 * date-time: its expression says more than the format, that timestamps carry milliseconds.
 */
const STANDARD_FORMATS = new Set(['date', 'uuid', 'email']);

/** Rewrites zod's JSON Schema into the forms renderers and generated clients read well (same meaning). */
function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (typeof value !== 'object' || value === null) return value;
  const node = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, tidy(v)])) as JsonSchema;
  if (node.type === 'integer' || (Array.isArray(node.type) && node.type.includes('integer'))) {
    if (node.maximum === SAFE) delete node.maximum;
    if (node.minimum === -SAFE) delete node.minimum;
  }
  if (typeof node.format === 'string' && STANDARD_FORMATS.has(node.format)) delete node.pattern;
  // The contract's timestamps (contracts/common.ts): UTC with milliseconds. The format checks the calendar
  // and the clock; the expression needs to say only the shape zod's long one says.
  if (node.format === 'date-time' && typeof node.pattern === 'string' && node.pattern.endsWith('\\.\\d{3}(?:Z))$')) {
    node.pattern = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';
  }
  return nullable(node);
}

/**
 * A self-contained schema whose root is the object itself, as MCP wants for inputSchema/outputSchema
 * (the protocol requires `type: "object"` at the root, so a bare `$ref` root will not do).
 */
export function standalone(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { root, defs, id } = convert(schema, io, '#/$defs/');
  const others = Object.fromEntries(Object.entries(defs).filter(([name]) => name !== id || JSON.stringify(root).includes(`"#/$defs/${id}"`)));
  return Object.keys(others).length > 0 ? { ...root, $defs: others } : root;
}
