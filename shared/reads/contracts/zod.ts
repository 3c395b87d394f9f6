import * as zod from 'zod';

/**
 * zod for the read table's contracts, built when first used rather than when imported. A family
 * function parses only the input of the read it serves, and never its output contract (that is for
 * OpenAPI, MCP and the tests): built eagerly, the contracts of every read in the bundle were most of
 * its own import time (docs/performance.md, cold start). Read files import this module in place of
 * `zod` (`import * as z from '../contracts/zod.js'`) and are written as with zod: every name, type and
 * value is zod's, except that the schema builders below return a stand-in which records the call and
 * builds the real schema, once, the first time anything but another builder step is asked of it
 * (parse, shape, toJSONSchema through `settle`). Shared parts stay shared: each stand-in builds one
 * schema, whoever asks first. A name missing from the lists below is not wrong, only eager: zod's own
 * function then runs at once, with any stand-in among its arguments built first.
 */
export * from 'zod';

type Make = () => unknown;

/** What a stand-in records: how to build its schema, and the schema once built. */
interface Pending {
  make: Make | undefined;
  built: unknown;
}

const pending = new WeakMap<object, Pending>();

/** Schema methods that return a new schema from this one (and arguments); anything else builds it. */
const STEPS = new Set([
  'and',
  'array',
  'catch',
  'default',
  'describe',
  'extend',
  'int',
  'length',
  'max',
  'meta',
  'min',
  'nonnegative',
  'nullable',
  'nullish',
  'omit',
  'optional',
  'or',
  'partial',
  'pick',
  'positive',
  'prefault',
  'readonly',
  'refine',
  'regex',
  'required',
  'safeExtend',
  'superRefine',
  'transform',
]);

/** The real schema behind a stand-in (built now if it was not), or the value itself. */
export function settle<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  const p = pending.get(value);
  if (!p) return value;
  if (p.make) {
    const make = p.make;
    p.make = undefined;
    p.built = make();
  }
  return p.built as T;
}

/**
 * Throws when a schema zod built itself holds a stand-in (a contract part of this module passed to
 * `zod`'s own builders): zod would still parse with it, but its description and id, kept in zod's
 * registry under the real schema, would be missing from the JSON Schema of OpenAPI and MCP.
 */
export function assertNoStandIns(schema: unknown): void {
  const seen = new Set<object>();
  const walk = (value: unknown, where: string): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    if (pending.has(value)) {
      throw new Error(
        `${where}: a contract part of shared/reads/contracts/zod.ts inside a schema built by zod itself; build the enclosing schema with contracts/zod.ts too`,
      );
    }
    seen.add(value);
    const def = (value as { _zod?: { def?: unknown } })._zod?.def;
    if (def !== undefined) walk(def, where);
    else if (Array.isArray(value)) for (const [i, v] of value.entries()) walk(v, `${where}[${i}]`);
    else if ([Object.prototype, null].includes(Object.getPrototypeOf(value)))
      for (const [k, v] of Object.entries(value)) walk(v, `${where}.${k}`);
  };
  walk(settle(schema), 'schema');
}

/** Arguments with every stand-in in them replaced by its schema (arrays and plain objects walked; copied only where one was found). */
function settleAll(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (pending.has(value)) return settle(value);
  if (Array.isArray(value)) {
    const out = value.map(settleAll);
    return out.some((v, i) => v !== value[i]) ? out : value;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = settleAll(v);
    if (out[k] !== v) changed = true;
  }
  return changed ? out : value;
}

const boundMethods = new WeakMap<object, Map<PropertyKey, unknown>>();

/** A method of the built schema, bound to it, so zod never sees the stand-in as `this`. */
function bound(real: object, prop: PropertyKey, fn: (...args: unknown[]) => unknown): unknown {
  let methods = boundMethods.get(real);
  if (!methods) boundMethods.set(real, (methods = new Map()));
  let b = methods.get(prop);
  if (!b) methods.set(prop, (b = fn.bind(real)));
  return b;
}

function standIn(make: Make): unknown {
  const state: Pending = { make, built: undefined };
  const proxy: object = new Proxy(state, {
    get(_, prop) {
      if (typeof prop === 'string' && STEPS.has(prop)) {
        return (...args: unknown[]) => {
          // meta() without an argument reads the metadata: nothing to defer.
          if (prop === 'meta' && args.length === 0) return (settle(proxy) as zod.ZodType).meta();
          return standIn(() => {
            const real = settle(proxy) as Record<string, (...a: unknown[]) => unknown>;
            return real[prop]?.(...(settleAll(args) as unknown[]));
          });
        };
      }
      const real = settle(proxy) as object;
      const value: unknown = Reflect.get(real, prop, real);
      return typeof value === 'function' ? bound(real, prop, value as (...args: unknown[]) => unknown) : value;
    },
    has: (_, prop) => Reflect.has(settle(proxy) as object, prop),
    getPrototypeOf: () => Reflect.getPrototypeOf(settle(proxy) as object),
    set: (_, prop, value) => Reflect.set(settle(proxy) as object, prop, value),
  });
  pending.set(proxy, state);
  return proxy;
}

/** A zod builder that returns a stand-in (same signature, same type). */
function deferred<F extends (...args: never[]) => unknown>(fn: F): F {
  return ((...args: Parameters<F>) => standIn(() => fn(...(settleAll(args) as Parameters<F>)))) as F;
}

export const array = deferred(zod.array);
export const boolean = deferred(zod.boolean);
export const discriminatedUnion = deferred(zod.discriminatedUnion);
export const guid = deferred(zod.guid);
export const literal = deferred(zod.literal);
export const number = deferred(zod.number);
export const object = deferred(zod.object);
export const strictObject = deferred(zod.strictObject);
export const string = deferred(zod.string);
export const union = deferred(zod.union);
export const uuid = deferred(zod.uuid);
const enumOf = deferred(zod.enum);
const nullSchema = deferred(zod.null);

export { enumOf as enum, nullSchema as null };
export const iso: typeof zod.iso = { ...zod.iso, date: deferred(zod.iso.date), datetime: deferred(zod.iso.datetime) };
