import { createRequire as requireFrom } from 'node:module';

/**
 * Node builtins the functions load with require rather than import. An ESM import of a builtin makes
 * Node evaluate every lazy getter among its exports to build the module namespace: node:http's pull in
 * undici (its fetch), a measurable part of every cold start on Node 24, the Lambda runtime, for nothing we
 * use; node:util's cost a little too. require hands back the module object and leaves the getters alone
 * (npm run bench -- bundles; docs/performance.md).
 */
// Names of their own: the functions' bundles open with a banner declaring `createRequire` and `require`.
const load = requireFrom(import.meta.url);

export const http = load('node:http') as typeof import('node:http');
export const https = load('node:https') as typeof import('node:https');
export const { types } = load('node:util') as typeof import('node:util');
