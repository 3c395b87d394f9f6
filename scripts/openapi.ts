import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApi } from '../shared/openapi/document.js';
import { OPENAPI_FILE, serializeOpenApi } from '../shared/openapi/serialize.js';
import { CLIENT_TYPES_FILE, clientTypes } from './openapi-client.js';

/**
 * `npm run openapi`: writes openapi/openapi.json from the read table, and the client types generated
 * from it. Both are committed; test/openapi/document.test.ts fails when either disagrees with the code.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const text = serializeOpenApi(buildOpenApi());
for (const [file, content] of [
  [OPENAPI_FILE, text],
  [CLIENT_TYPES_FILE, await clientTypes(JSON.parse(text))],
] as const) {
  await mkdir(dirname(join(root, file)), { recursive: true });
  await writeFile(join(root, file), content);
  console.log(`wrote ${file} (${Buffer.byteLength(content)} bytes)`);
}
