// esbuild bundles the JSON into the function; the reference page is a file beside the bundle, which the
// function's bundling builds and copies there (lib/stateless-stack.ts).

import { existsSync, readFileSync } from 'node:fs';
import { baseConfig } from '#shared/config/base.js';
import { openapiHandler } from '#shared/rest/openapi-handler.js';
import { REFERENCE_FILE, REFERENCE_PATH } from '#shared/rest/reference-page.js';
import { serializeOpenApi } from '#shared/rest/serialize-openapi.js';
import document from '../../openapi/openapi.json' with { type: 'json' };

// Absent where the handler runs from source (the local stack serves its own page). Read once per instance,
// on the first request for it: the function's other answers never need its 2.7 MB.
const pageFile = new URL(`./${REFERENCE_FILE}`, import.meta.url);
let html: string | undefined;
const readPage = (): string => (html ??= readFileSync(pageFile, 'utf8'));

// openapi.json is written by serializeOpenApi, so serializing its parse gives back the same bytes
// (test/openapi/document.test.ts checks it on the bundled function).
export const handler = openapiHandler({
  document: serializeOpenApi(document),
  apiSwitch: baseConfig().apiSwitch,
  ...(existsSync(pageFile) ? { referencePage: { path: REFERENCE_PATH, html: readPage } } : {}),
});
