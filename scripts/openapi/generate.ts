import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tools } from '#shared/mcp/tools.js';
import { reads } from '#shared/reads/registry.js';
import { OPENAPI_FILE, serializeOpenApi } from '#shared/rest/serialize-openapi.js';
import { generatedSources as typescriptClientSources } from '../../clients/typescript/scripts/generate.js';
import { buildOpenApi } from './document.js';
import { generateExamples } from './examples.js';
import { writeLlmsFiles } from './llms.js';
import { METHODOLOGY_FILE, METHODOLOGY_SOURCE, methodologyModule } from './methodology.js';
import { PYTHON_GENERATED_FILE, pythonClientModule } from './python-client.js';
import { TOOL_LIST_FILE, toolListModule } from './tool-list.js';

/**
 * `npm run openapi`: writes openapi/openapi.json from the read table, with an example per operation made
 * on the demo data (it starts the embedded store for that, which takes a while), the client types
 * generated from it (the TypeScript client's types and operations, which examples/client uses too, and the
 * Python client's types and methods), and the MCP tool list the MCP function answers tools/list with
 * (tool-list.ts). All are committed; test/openapi/document.test.ts, examples.test.ts,
 * test/clients/typescript-generated.test.ts, python-client.test.ts and test/mcp/tool-list.test.ts fail when
 * one disagrees with the code. llms.txt and llms-full.txt follow from
 * the document and the docs (scripts/openapi/llms.ts).
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const text = serializeOpenApi(buildOpenApi(reads, await generateExamples()));
for (const [file, content] of [
  [OPENAPI_FILE, text],
  [PYTHON_GENERATED_FILE, pythonClientModule(JSON.parse(text))],
  ...Object.entries(await typescriptClientSources(JSON.parse(text))),
  [TOOL_LIST_FILE, toolListModule([...tools().values()])],
  [METHODOLOGY_FILE, methodologyModule(await readFile(join(root, METHODOLOGY_SOURCE), 'utf8'))],
] as const) {
  await mkdir(dirname(join(root, file)), { recursive: true });
  await writeFile(join(root, file), content);
  console.log(`wrote ${file} (${Buffer.byteLength(content)} bytes)`);
}
// After the document: llms.txt and llms-full.txt are made from it and the docs.
for (const [file, bytes] of await writeLlmsFiles(root)) console.log(`wrote ${file} (${bytes} bytes)`);
