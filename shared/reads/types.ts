import type { z } from 'zod';
import type { Db } from '../store/db.js';

/** The Lambda that serves a read. One family, one function, one bundle. */
export type Family = 'identity' | 'figures' | 'catalog';
export const FAMILIES: readonly Family[] = ['identity', 'figures', 'catalog'];

export type KeyScope = 'workspace' | 'brand' | 'analysis';

/** Who is calling, as established by one SQL round trip at the head of the chain. */
export interface Identity {
  key: {
    id: string;
    name: string;
    prefix: string;
    scope: KeyScope;
    brand: string | null;
    pinnedAnalysis: string | null;
    createdAt: Date;
    expiresAt: Date;
    lastUsedAt: Date;
  };
  workspace: { id: string; name: string; slug: string };
  plan: { key: string; perMinute: number };
  /** Analyses the key may read right now: key scope intersected with its creator's access. */
  reach: ReadonlyArray<{ id: string; slug: string }>;
}

export interface BudgetState {
  limit: number;
  remaining: number;
  resetAfterSeconds: number;
}

export interface ReadContext {
  requestId: string;
  identity: Identity;
  budget: BudgetState;
  db: Db;
  /** The analysis named in the path, resolved inside the key's reach (scoped reads only). */
  analysis: { id: string; slug: string } | undefined;
  now: Date;
  /** HMAC key for the cursors of paged reads (shared/reads/cursor.ts). */
  cursorSecret: string;
}

/**
 * One read, declared once. REST routes, MCP tools and openapi.json are all generated from this.
 * `input` holds the path parameters (including `analysis` on scoped reads) and the query parameters,
 * with typed values; the REST face converts query strings strictly before validating.
 */
export interface ReadDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  /** snake_case; also the MCP tool name. */
  name: string;
  family: Family;
  /** Relative to /api/v1, e.g. /analyses/{analysis}/metrics. */
  path: string;
  summary: string;
  /** For OpenAPI and for the assistant: when to use it, units, what null means. */
  description: string;
  input: I;
  output: O;
  /** Error codes of SPEC §7 this read can answer with, beyond those every call can. */
  errors: readonly string[];
  run(ctx: ReadContext, input: z.infer<I>): Promise<z.infer<O>>;
}

export function defineRead<I extends z.ZodObject, O extends z.ZodType>(def: ReadDef<I, O>): ReadDef<I, O> {
  return def;
}

/** Names of the path parameters of a read, in order: /analyses/{analysis}/runs/{run} -> [analysis, run]. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
}

export function isScoped(read: Pick<ReadDef, 'path'>): boolean {
  return read.path.includes('{analysis}');
}
