import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { reads as registeredReads } from '#shared/reads/registry.js';
import { generatedSources, TS_CLIENT_OPERATIONS_FILE, TS_CLIENT_SCHEMA_FILE } from '../../clients/typescript/scripts/generate.js';
import { OPERATIONS } from '../../clients/typescript/src/operations.js';

const root = resolve(import.meta.dirname, '..', '..');

describe('the TypeScript client is generated from the committed openapi.json', () => {
  test('the committed schema.ts and operations.ts are what the generator makes of openapi.json', async () => {
    const doc = JSON.parse(await readFile(join(root, 'openapi', 'openapi.json'), 'utf8'));
    const fresh = await generatedSources(doc);
    expect(Object.keys(fresh).sort()).toEqual([TS_CLIENT_OPERATIONS_FILE, TS_CLIENT_SCHEMA_FILE].sort());
    for (const [file, content] of Object.entries(fresh)) {
      // On a difference: `npm run openapi` (or `npm run generate -w @geo-api/client`) and commit the result.
      expect({ file, same: (await readFile(join(root, file), 'utf8')) === content }).toEqual({ file, same: true });
    }
  });

  test('one method per read, named as its MCP tool in camelCase, in the contract order', async () => {
    const doc = JSON.parse(await readFile(join(root, 'openapi', 'openapi.json'), 'utf8'));
    const tools = Object.values(doc.paths as Record<string, Record<string, { operationId?: string; description?: string }>>)
      .map((item) => item.get)
      .filter((op) => op?.description?.includes('MCP tool: `'))
      .map((op) => op!.operationId!);
    expect(tools.length).toBe(registeredReads.length);
    expect(Object.keys(OPERATIONS)).toEqual(tools.map((t) => t.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())));
    expect(Object.entries(OPERATIONS).map(([name, op]) => [name, op.paging])).toEqual(
      expect.arrayContaining([
        ['listAnalyses', 'cursor'],
        ['listAnswers', 'cursor'],
        ['listGroupPrompts', 'offset'],
        ['getMe', null],
      ]),
    );
  });
});
