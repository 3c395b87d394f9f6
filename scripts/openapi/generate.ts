import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tools } from '#shared/mcp/tools.js';
import { reads } from '#shared/reads/registry.js';
import { OPENAPI_FILE, serializeOpenApi } from '#shared/rest/serialize-openapi.js';
import { CLIENT_TYPES_FILE, clientTypes } from './client.js';
import { buildOpenApi } from './document.js';
import { generateExamples } from './examples.js';
import { TOOL_LIST_FILE, toolListModule } from './tool-list.js';

/**
 * `npm run openapi`: writes openapi/openapi.json from the read table, with an example per operation made
 * on the demo data (it starts the embedded store for that, which takes a while), the client types
 * generated from it, and the MCP tool list the MCP function answers tools/list with (tool-list.ts).
 * All are committed; test/openapi/document.test.ts, examples.test.ts and test/mcp/tool-list.test.ts
 * fail when one disagrees with the code.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const text = serializeOpenApi(buildOpenApi(reads, await generateExamples()));
for (const [file, content] of [
  [OPENAPI_FILE, text],
  [CLIENT_TYPES_FILE, await clientTypes(JSON.parse(text))],
  [TOOL_LIST_FILE, toolListModule([...tools().values()].map((t) => t.tool))],
] as const) {
  await mkdir(dirname(join(root, file)), { recursive: true });
  await writeFile(join(root, file), content);
  console.log(`wrote ${file} (${Buffer.byteLength(content)} bytes)`);
}
