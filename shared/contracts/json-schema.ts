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
  const text = JSON.stringify(raw).replaceAll('"#/$defs/', `"${refPrefix}`);
  const { $schema: _schema, $defs, ...rest } = JSON.parse(text) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  const defs = { ...($defs ?? {}) };
  const id = (z.globalRegistry.get(schema) as { id?: string } | undefined)?.id;
  const root = id !== undefined && rest.$ref === `${refPrefix}${id}` ? (defs[id] as JsonSchema) : rest;
  return { root, defs, id };
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
