import { randomUUID } from 'node:crypto';
import { type Config, parseConfig } from '#shared/config/service.js';
import { REFERENCE_PATH } from '#shared/rest/reference-page.js';
import { createServices, type Services } from '#shared/store/services.js';
import { type LocalPages, startHttp } from './adapter.js';
import { createHandlers } from './handlers.js';

/** A dev-only cursor key; deployed stacks take CURSOR_SECRET from Secrets Manager. */
export const LOCAL_CURSOR_SECRET = 'local-development-cursor-secret-not-for-production';

/** Configuration of a local API process on top of the given stores. */
export function localConfig(readerUrl: string, dynamoEndpoint: string | undefined, overrides: Record<string, string> = {}): Config {
  return parseConfig({
    CURSOR_SECRET: LOCAL_CURSOR_SECRET,
    DB_POOL_MAX: '8',
    ...process.env,
    DATABASE_URL: readerUrl,
    ...(dynamoEndpoint ? { DYNAMODB_ENDPOINT: dynamoEndpoint } : {}),
    ...overrides,
  });
}

export interface LocalApi {
  url: string;
  baseUrl: string;
  services: Services;
  close(): Promise<void>;
}

/**
 * Serves the API over HTTP through the local adapter, with its own clients (one "Lambda instance"),
 * plus any local-only `pages` (npm start: the reference page at /api/v1/docs, as deployed, and /docs).
 */
export async function startApi(cfg: Config, port = 0, host = '127.0.0.1', pages: LocalPages = {}): Promise<LocalApi> {
  const services = createServices(cfg);
  const referencePage = REFERENCE_PATH in pages ? { path: REFERENCE_PATH } : undefined;
  const http = await startHttp(createHandlers(services, referencePage), port, host, pages);
  return {
    url: http.url,
    baseUrl: `${http.url}/api/v1`,
    services,
    close: async () => {
      await http.close();
      await services.close();
    },
  };
}

export const freshTableName = (): string => `geo-budget-${randomUUID().slice(0, 8)}`;
