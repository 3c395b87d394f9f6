import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { listCompetitors } from '#shared/reads/figures/competitors.js';
import type { LocalApi } from '../../local/stack.js';
import { CROWD_ANALYSIS, CROWD_INDIRECT, CROWD_SECRET } from '../fixtures/crowd.js';
import { unwrapUntrusted } from '../mcp/args.js';
import { connect, withoutRateLimit } from '../mcp/support.js';
import { call, expectServed, startTestApi } from '../support/api.js';

/**
 * The competitor list (list_competitors) keeps one page whatever the number of brands answers name
 * (docs/contract.md#common-parameters rule 5: a single-page read signals more rows with truncated): every
 * direct competitor, the 50 most mentioned indirect ones, total counting them all. Expected values worked out by hand from test/fixtures/crowd.ts.
 */
const LIMIT = 50;

let api: LocalApi;
let client: Client;
beforeAll(async () => {
  api = await startTestApi();
  client = await connect(api, CROWD_SECRET);
});
afterAll(async () => {
  await client?.close();
  await api?.close();
});

describe('competitors (list_competitors): indirect competitors capped, direct ones always listed', () => {
  test('60 indirect brands named: the 50 most mentioned (ties by name), both direct ones, truncated, total 62', async () => {
    const body = expectServed(await call(api, `/analyses/${CROWD_ANALYSIS}/competitors`, CROWD_SECRET), listCompetitors.output);
    // B01..B10: 2 mentions (rank 1); Crowdo, Rival, B11..B60: 1 (rank 11); Quiet: 0 (rank 1 + 62 brands named).
    const shown = [
      ...CROWD_INDIRECT.slice(0, 10).map((n) => [n, 'indirect', 1, 2]),
      ...CROWD_INDIRECT.slice(10, LIMIT).map((n) => [n, 'indirect', 11, 1]),
    ];
    expect(body.items.map((i) => [i.name, i.kind, i.rank, i.mentions])).toEqual([
      ...shown,
      ['Rival', 'direct', 11, 1],
      ['Quiet', 'direct', 63, 0],
    ]);
    expect(body.items.map((i) => i.name)).not.toContain(CROWD_INDIRECT[LIMIT]);
    expect([body.truncated, body.total, body.next_cursor]).toEqual([true, 62, null]);
    expect(body.tracked).toMatchObject({ name: 'Crowdo', rank: 11, mentions: 1 });
    // Share of voice still counts every mention: 2×10 + 1×52 = 72.
    expect(body.items[0]!.share_of_voice).toMatchObject({ numerator: 2, denominator: 72 });
  });

  test('MCP list_competitors: the same page, and the cap stated where a model reads it', async () => {
    const result = await client.callTool({ name: 'list_competitors', arguments: { analysis: CROWD_ANALYSIS } });
    const rest = await call(api, `/analyses/${CROWD_ANALYSIS}/competitors`, CROWD_SECRET);
    expect(withoutRateLimit(unwrapUntrusted(result.structuredContent))).toEqual(rest.body);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'list_competitors')?.description).toContain(`the ${LIMIT} most mentioned`);
  });

  test('the OpenAPI document states the cap on the read and on truncated', async () => {
    const doc = (await call(api, '/openapi.json')).body;
    const list = doc.components.schemas.competitor_list;
    expect(list.description).toContain(`the ${LIMIT} most mentioned indirect ones`);
    expect(list.properties.truncated.description).toContain(`past the ${LIMIT} most mentioned`);
    expect(doc.paths['/analyses/{analysis}/competitors'].get.description).toContain(`the ${LIMIT} most mentioned`);
  });
});
