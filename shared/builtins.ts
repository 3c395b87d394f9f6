import { createRequire } from 'node:module';

/**
 * Node builtins the functions load with require rather than import. An ESM import of a builtin makes
 * Node evaluate every lazy getter among its exports to build the module namespace: node:http's pull in
 * undici (its fetch), about 45 ms of every cold start on Node 24, the Lambda runtime, for nothing we use;
 * node:util's cost 5 ms. require hands back the module object and leaves the getters alone
 * (npm run bench -- bundles).
 */
const require = createRequire(import.meta.url);

export const http = require('node:http') as typeof import('node:http');
export const https = require('node:https') as typeof import('node:https');
export const { types } = require('node:util') as typeof import('node:util');
