import * as z from 'zod';
import { assertNoStandIns, settle } from './zod.js';

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
export function convert(contract: z.ZodType, io: 'input' | 'output', refPrefix: string): Converted {
  // The schema itself, not the stand-in a read file holds (contracts/zod.ts): zod keys its registry by schema.
  const schema = settle(contract);
  assertNoStandIns(schema);
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
  const others = Object.fromEntries(
    Object.entries(defs).filter(([name]) => name !== id || JSON.stringify(root).includes(`"#/$defs/${id}"`)),
  );
  return Object.keys(others).length > 0 ? { ...root, $defs: others } : root;
}

/** Fewer properties than this and a match is a coincidence of shape ({key, name}), not a shared part. */
const MIN_PART_PROPERTIES = 3;

const isSchema = (x: unknown): x is JsonSchema => typeof x === 'object' && x !== null && !Array.isArray(x);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Named parts written once where zod writes them again. `.extend()` copies the fields of the schema it
 * extends (engine_metrics is headline_metrics plus engine, source_share is rate plus null_reason, rate is
 * rate_value plus the comparison), so those fields, descriptions included, would stand in several places.
 * An object whose properties include every property of a named part, identical, and whose required list
 * includes the part's, becomes `allOf: [{$ref: part}]` plus its own remaining fields (the largest such
 * part; a part is never its own base, and bases have strictly fewer fields, so there is no cycle).
 *
 * Closed objects (`additionalProperties: false`, as the OpenAPI document states responses): JSON Schema
 * cannot extend a closed schema (the base would refuse the extension's fields), so a part used as a base
 * is left open, and its closure moves to every place that uses it: `unevaluatedProperties: false` on the
 * extending object and beside every other reference to the part. In draft 2020-12 that keyword sees the
 * properties evaluated through `$ref` and `allOf`, so exactly the same instances validate as before.
 * Open objects (MCP output schemas) just take the `allOf`.
 *
 * `defs` are the named parts by id, `refPrefix` how references to them are written; returns the rewritten
 * parts, the rewritten roots, and the ids made open (whose references outside an `allOf` must carry the
 * closure: closeReferences does that for the rest of a document).
 */
export function shareParts(
  defs: Record<string, JsonSchema>,
  refPrefix: string,
  roots: JsonSchema[] = [],
): { defs: Record<string, JsonSchema>; roots: JsonSchema[]; opened: Set<string> } {
  const parts = Object.entries(defs).filter(
    ([, d]) => d.type === 'object' && isSchema(d.properties) && Object.keys(d.properties).length >= MIN_PART_PROPERTIES,
  ) as Array<[string, JsonSchema & { properties: Record<string, unknown> }]>;
  const bases = new Set<string>();

  const baseOf = (node: JsonSchema, self: string | undefined): string | undefined => {
    const props = node.properties as Record<string, unknown>;
    const required = (node.required ?? []) as string[];
    let best: [string, number] | undefined;
    for (const [id, part] of parts) {
      const keys = Object.keys(part.properties);
      if (id === self || keys.length >= Object.keys(props).length || (best && keys.length <= best[1])) continue;
      if (!keys.every((k) => k in props && same(props[k], part.properties[k]))) continue;
      if (!((part.required ?? []) as string[]).every((r) => required.includes(r))) continue;
      best = [id, keys.length];
    }
    return best?.[0];
  };

  const rewrite = (node: JsonSchema, self: string | undefined): JsonSchema => {
    if (node.type !== 'object' || !isSchema(node.properties)) return node;
    const base = baseOf(node, self);
    if (!base) return node;
    bases.add(base);
    const inherited = defs[base]?.properties as Record<string, unknown>;
    const inheritedRequired = (defs[base]?.required ?? []) as string[];
    const { type: _type, properties, required, additionalProperties, ...rest } = node;
    const own = Object.fromEntries(Object.entries(properties).filter(([k]) => !(k in inherited)));
    const ownRequired = ((required ?? []) as string[]).filter((r) => !inheritedRequired.includes(r));
    return {
      allOf: [{ $ref: `${refPrefix}${base}` }],
      properties: own,
      ...(ownRequired.length > 0 ? { required: ownRequired } : {}),
      ...(additionalProperties === false
        ? { unevaluatedProperties: false }
        : additionalProperties === undefined
          ? {}
          : { additionalProperties }),
      ...rest,
    };
  };

  // Bottom-up, so nested objects (a list's items) are matched too; always against the parts as zod wrote them.
  const walk = (value: unknown, self: string | undefined, top: boolean): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, undefined, false));
    if (!isSchema(value)) return value;
    const node = Object.fromEntries(
      Object.entries(value).map(([k, v]) =>
        k === 'properties' && isSchema(v)
          ? [k, Object.fromEntries(Object.entries(v).map(([p, s]) => [p, walk(s, undefined, false)]))]
          : [k, walk(v, undefined, false)],
      ),
    ) as JsonSchema;
    return rewrite(node, top ? self : undefined);
  };

  const outDefs = Object.fromEntries(Object.entries(defs).map(([id, d]) => [id, walk(d, id, true) as JsonSchema]));
  const outRoots = roots.map((r) => walk(r, undefined, true) as JsonSchema);
  const opened = new Set<string>();
  for (const id of bases) {
    const def = outDefs[id] as JsonSchema;
    if (def.additionalProperties === false || def.unevaluatedProperties === false) {
      const { additionalProperties: _a, unevaluatedProperties: _u, ...open } = def;
      outDefs[id] = open;
      opened.add(id);
    }
  }
  const close = (s: JsonSchema) => closeReferences(s, opened, refPrefix);
  return { defs: Object.fromEntries(Object.entries(outDefs).map(([id, d]) => [id, close(d)])), roots: outRoots.map(close), opened };
}

/**
 * `unevaluatedProperties: false` beside every reference to an opened part (see shareParts), except the
 * references an `allOf` extends: those are closed by the extending object itself.
 */
export function closeReferences<T>(value: T, opened: ReadonlySet<string>, refPrefix: string): T {
  if (opened.size === 0) return value;
  const walk = (v: unknown, extended: boolean): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, extended));
    if (!isSchema(v)) return v;
    const out = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k === 'allOf')])) as JsonSchema;
    const ref = out.$ref;
    if (!extended && typeof ref === 'string' && ref.startsWith(refPrefix) && opened.has(ref.slice(refPrefix.length)))
      out.unevaluatedProperties = false;
    return out;
  };
  return walk(value, false) as T;
}

/** shareParts on a self-contained schema (its own `$defs`, referred to as `#/$defs/...`). */
export function sharePartsWithin(schema: JsonSchema): JsonSchema {
  const { $defs, ...root } = schema;
  if (!isSchema($defs)) return schema;
  const out = shareParts($defs as Record<string, JsonSchema>, '#/$defs/', [root]);
  return { ...out.roots[0], $defs: out.defs };
}
