import type { z } from 'zod';
import { InternalError } from '../errors.js';
import type { BudgetState } from '../store/budget.js';
import type { Caller, ReachedAnalysis } from '../store/caller.js';
import type { Db } from '../store/db.js';

/** The Lambda that serves a read. One family, one function, one bundle. */
export type Family = 'identity' | 'figures' | 'catalog';
export const FAMILIES: readonly Family[] = ['identity', 'figures', 'catalog'];

/** A read's input after validation by its own schema: path and query parameters with typed values. */
export type ReadInput = Record<string, unknown>;

export interface ReadContext {
  requestId: string;
  caller: Caller;
  budget: BudgetState;
  db: Db;
  /** The analysis named in the path, resolved inside the key's reach (scoped reads only). */
  analysis: ReachedAnalysis | undefined;
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
  /** Error codes (docs/contract.md#errors) this read can answer with, beyond those every call can. */
  errors: readonly string[];
  run(ctx: ReadContext, input: z.infer<I>): Promise<z.infer<O>>;
  /**
   * A whole-list read's page as MCP cuts it (shared/mcp/tools.ts, MCP_SLICES): `limit` items from `offset`,
   * `total` and `truncated` as the whole list would give them, read from the store without the rest of the
   * list. Without it MCP runs `run` and cuts its items.
   */
  runPage?(ctx: ReadContext, input: z.infer<I>, page: { limit: number; offset: number }): Promise<z.infer<O>>;
  /**
   * A page read whose reply can outgrow what a function may return (its items grow with the engines of
   * the analysis, which nothing bounds): the reply with its first `items` items only, as a page of them
   * would be (`truncated` true, anything computed over the page computed again). Each face cuts a reply
   * too large to send (shared/reads/fit.ts); the caller continues at offset + items.length.
   */
  cut?(reply: z.infer<O>, items: number): z.infer<O>;
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

/**
 * The analysis of a scoped read (its path has {analysis}), resolved before the read runs. A scoped read
 * run without one is a wiring fault, refused as internal_error.
 */
export function scopedAnalysis(ctx: Pick<ReadContext, 'analysis'>): ReachedAnalysis {
  if (!ctx.analysis) throw new InternalError(new Error('a scoped read ran without its analysis'));
  return ctx.analysis;
}
