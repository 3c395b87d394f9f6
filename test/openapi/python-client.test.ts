import { readFileSync } from 'node:fs';
import { describe, expect, test } from '@jest/globals';
import { reads as registeredReads } from '#shared/reads/registry.js';
import { OPENAPI_FILE } from '#shared/rest/serialize-openapi.js';
import { PYTHON_GENERATED_FILE, pythonClientModule } from '../../scripts/openapi/python-client.js';

/**
 * The Python client's types, read table and methods (clients/python/src/geo_api/_generated.py) are what
 * scripts/openapi/python-client.ts makes of the committed document: one method per read named as its
 * MCP tool, each read's path and parameters, how each list pages, every error code with its status.
 */
const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
const committed = readFileSync(PYTHON_GENERATED_FILE, 'utf8');

describe('the Python client generated from openapi.json', () => {
  test('the committed module is what the generator makes of the committed document (else: npm run openapi)', () => {
    expect(committed === pythonClientModule(doc)).toBe(true);
  });

  test('one method per read, named as its operationId (the MCP tool), with its path', () => {
    const reads = Object.entries(doc.paths as Record<string, Record<string, { operationId: string; tags: string[] }>>)
      .flatMap(([path, item]) => Object.values(item).map((op) => ({ path, ...op })))
      .filter((op) => !['assistant', 'contract'].includes(op.tags[0] as string));
    expect(reads).toHaveLength(registeredReads.length);
    for (const { operationId, path } of reads) {
      expect(committed).toContain(`    def ${operationId}(self`);
      expect(committed).toContain(`    "${operationId}": Read(\n        path="${path}",`);
    }
  });

  test('each list read pages as the contract says: cursor, offset, or one page', () => {
    const paging = Object.fromEntries(
      [...committed.matchAll(/ {4}"(\w+)": Read\(\n(?:.*\n)*?\s+paging=(None|"(\w+)")/g)].map((m) => [m[1], m[3] ?? null]),
    );
    expect(paging).toEqual({
      get_me: null,
      list_analyses: 'cursor',
      get_analysis: null,
      get_metrics: null,
      get_metrics_timeseries: null,
      list_engines: 'single',
      list_competitors: 'single',
      list_sources: 'single',
      list_groups: 'single',
      list_group_prompts: 'offset',
      list_prompts: 'single',
      list_runs: 'single',
      get_run: null,
      list_answers: 'cursor',
      get_answer: null,
    });
  });

  test('a schema the generator cannot name in Python is refused, not written wrong', () => {
    const broken = structuredClone(doc);
    broken.components.schemas.me.properties.from = { type: 'string' };
    expect(() => pythonClientModule(broken)).toThrow('me.from is not a Python name');
  });
});
