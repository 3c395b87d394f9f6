import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mcpHandler } from '#shared/mcp/handler.js';
import { readsByFamily } from '#shared/reads/registry.js';
import { restHandler } from '#shared/rest/handler.js';
import { openapiHandler, type ReferencePage } from '#shared/rest/openapi-handler.js';
import { OPENAPI_FILE } from '#shared/rest/serialize-openapi.js';
import type { Services } from '#shared/store/services.js';
import type { Handlers, LambdaHandler } from './adapter.js';

/**
 * The committed document, read as bytes: locally too, /openapi.json serves the file, not a rebuild. Found
 * from this module upwards, so that a bundle of the local stack (the reliability battery runs one) finds
 * it wherever it is written inside the repository.
 */
function openapiBytes(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, OPENAPI_FILE))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`${OPENAPI_FILE} not found above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return readFileSync(join(dir, OPENAPI_FILE), 'utf8');
}

/**
 * The same handler factories the Lambda entry files use, bound to one set of local services;
 * `referencePage`: where the local stack serves the reference page, for the index to link.
 */
export function createHandlers(services: Services, referencePage?: ReferencePage): Handlers {
  return {
    identity: restHandler(readsByFamily.identity, services) as unknown as LambdaHandler,
    figures: restHandler(readsByFamily.figures, services) as unknown as LambdaHandler,
    catalog: restHandler(readsByFamily.catalog, services) as unknown as LambdaHandler,
    mcp: mcpHandler(services) as unknown as LambdaHandler,
    openapi: openapiHandler({
      document: openapiBytes(),
      apiSwitch: services.config.apiSwitch,
      ...(referencePage ? { referencePage } : {}),
    }) as unknown as LambdaHandler,
  };
}
