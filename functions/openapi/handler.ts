// esbuild bundles the JSON into the function; no file to ship beside it.

import { baseConfig } from '#shared/config/base.js';
import { openapiHandler } from '#shared/rest/openapi-handler.js';
import { serializeOpenApi } from '#shared/rest/serialize-openapi.js';
import document from '../../openapi/openapi.json' with { type: 'json' };

// openapi.json is written by serializeOpenApi, so serializing its parse gives back the same bytes
// (test/openapi/document.test.ts checks it on the bundled function).
export const handler = openapiHandler({ document: serializeOpenApi(document), apiSwitch: baseConfig().apiSwitch });
