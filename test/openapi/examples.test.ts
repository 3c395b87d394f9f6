import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { reads } from '#shared/reads/registry.js';
import { OPENAPI_FILE, serializeOpenApi } from '#shared/rest/serialize-openapi.js';
import { buildOpenApi, examplesOf, type OpenApiDocument } from '../../scripts/openapi/document.js';
import { generateExamples } from '../../scripts/openapi/examples.js';

/**
 * Every operation shows a realistic example, made from the demo data, valid against
 * its schema, and reproducible byte for byte (re-made here on a fresh embedded store).
 */

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;
const root = join(import.meta.dirname, '..', '..');
const HINT = 'run `npm run openapi` and commit openapi/openapi.json and the files it writes';

const text = await readFile(join(root, OPENAPI_FILE), 'utf8');
const doc = JSON.parse(text) as OpenApiDocument;
const pointer = (parts: string[]) => `#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

interface Shown {
  at: string;
  schema: string;
  example: string;
}

/** Every example the document shows: 200 responses, and request bodies. */
function shown(): Shown[] {
  const out: Shown[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      // GET and DELETE /mcp answer only an error (405); no error response carries an example.
      if (!op.responses['200']) continue;
      const media: Array<[string[], any]> = [
        [
          ['paths', path, method, 'responses', '200', 'content', 'application/json'],
          (op.responses['200'] as any)?.content?.['application/json'],
        ],
      ];
      if (op.requestBody)
        media.push([
          ['paths', path, method, 'requestBody', 'content', 'application/json'],
          (op.requestBody as any).content['application/json'],
        ]);
      for (const [parts, m] of media) {
        out.push({
          at: `${method.toUpperCase()} ${path} (${parts[3] === 'requestBody' ? 'request' : 'response'})`,
          schema: pointer([...parts, 'schema']),
          example: m?.examples?.demo?.$ref,
        });
      }
    }
  }
  return out;
}

describe('every operation has an example, valid against its schema', () => {
  test('each 200 response (and each request body) refers to an example in components.examples', () => {
    const missing = shown().filter(
      (s) => typeof s.example !== 'string' || !doc.components.examples?.[s.example.split('/').pop() as string],
    );
    expect(missing.map((s) => s.at)).toEqual([]);
    expect(shown().length).toBe(reads.length + 3); // the reads, POST /mcp (request and response), GET /openapi.json
  });

  test('each example validates against its schema (formats, patterns, no unknown property)', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc as object, 'openapi.json');
    for (const s of shown()) {
      const value = (doc.components.examples as any)[s.example.split('/').pop() as string].value;
      const validate = ajv.compile({ $ref: `openapi.json${s.schema}` });
      const ok = validate(value);
      expect({ at: s.at, errors: ok ? null : validate.errors?.slice(0, 3) }).toEqual({ at: s.at, errors: null });
    }
  });

  test('the validation can fail: an example without milliseconds is refused', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc as object, 'openapi.json');
    const me = structuredClone((doc.components.examples as any).get_me.value);
    me.key.created_at = '2026-05-31T09:00:00Z';
    expect(ajv.compile({ $ref: `openapi.json${pointer(['components', 'schemas', 'me'])}` })(me)).toBe(false);
  });
});

describe('the examples are those of the demo data, byte for byte', () => {
  test('re-made on a fresh embedded store, they and the whole document equal the committed file', async () => {
    const fresh = await generateExamples();
    const committed = examplesOf(doc);
    for (const name of new Set([...Object.keys(fresh), ...Object.keys(committed)])) {
      if (JSON.stringify(fresh[name]) !== JSON.stringify(committed[name])) {
        expect({ example: name, value: fresh[name] }).toEqual({ example: name, value: committed[name] });
      }
    }
    if (serializeOpenApi(buildOpenApi(reads, fresh)) !== text) throw new Error(`openapi/openapi.json is stale: ${HINT}`);
  }, 240_000);
});
