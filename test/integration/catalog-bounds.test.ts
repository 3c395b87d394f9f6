import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { listPrompts } from '#shared/reads/catalog/prompts.js';
import { listGroupPrompts } from '#shared/reads/figures/groups.js';
import type { Queryable } from '#shared/store/queryable.js';
import type { LocalApi } from '../../local/stack.js';
import type { LocalStore } from '../../local/stores.js';
import { rpc, toolCall } from '../mcp/support.js';
import { call, expectServed, LAMBDA_LIMIT, lambdaBytes } from '../support/api.js';
import { startOwnApi } from '../support/own-store.js';

/**
 * What one analysis's catalogue can weigh (migration 014, docs/data-contract.md "Bounds"): list_prompts
 * answers every prompt in one reply, so the store refuses an analysis's 501st prompt, and the largest
 * catalogue it accepts (500 prompts, text, group name and language at their bounds, made of the character
 * that costs most once escaped) stays under the 6 MB a Lambda function may answer. The bounds are written
 * out here from the data contract, not imported from the code.
 */
const BOUND = { prompts: 500, text: 1_000, groupName: 300, language: 35 };

/** A C0 control: 6 bytes in a JSON string, 7 once the Lambda response carries the body as a JSON string. */
const worst = (n: number) => '\u0001'.repeat(n);

const GROUP = 'e2000000-0000-4000-8000-000000000001';
/** Engines added to the analysis: enough that a full page of the group's prompts outgrows 6 MB on REST too. */
const EXTRA_ENGINES = 15;
let refusal: { code?: string; message: string } | undefined;
/** The group's prompts in creation order, as written. */
let groupPrompts: string[] = [];
let slug: string;

/** Through the owner connection, as the product writes: the analysis filled to its bound, then one more. */
async function writeCatalogue(db: Queryable): Promise<void> {
  const { rows } = await db.query<{ id: string; slug: string; n: number }>(
    `SELECT a.id, a.slug, (SELECT count(*)::int FROM prompts p WHERE p.analysis_id = a.id) AS n FROM analyses a WHERE a.slug = 'acme-core'`,
  );
  const a = rows[0]!;
  slug = a.slug;
  await db.query(`INSERT INTO prompt_groups (id, analysis_id, name) VALUES ($1, $2, $3)`, [GROUP, a.id, worst(BOUND.groupName)]);
  // The demo's own prompts of the analysis as heavy as they can be too, in the groups they are in.
  await db.query(`UPDATE prompt_groups SET name = $2 WHERE analysis_id = $1`, [a.id, worst(BOUND.groupName)]);
  await db.query(`UPDATE prompts SET text = $2, language = $3 WHERE analysis_id = $1`, [a.id, worst(BOUND.text), worst(BOUND.language)]);
  await db.query(
    `INSERT INTO prompts (id, analysis_id, group_id, text, language, created_at)
     SELECT gen_random_uuid(), $1, $2, $3, $4, '2000-01-01T00:00:00Z'::timestamptz + n * interval '1 millisecond'
       FROM generate_series(1, $5::int) n`,
    [a.id, GROUP, worst(BOUND.text), worst(BOUND.language), BOUND.prompts - a.n],
  );
  groupPrompts = (await db.query<{ id: string }>('SELECT id FROM prompts WHERE group_id = $1 ORDER BY created_at, id', [GROUP])).rows.map(
    (r) => r.id,
  );
  // Engines past the six every size of docs/mcp.md is measured at: nothing in the store bounds them, and
  // each adds its figures to every prompt of a group's page.
  await db.query(
    `INSERT INTO engines (key, name) SELECT 'extra_' || n, 'Extra engine ' || n FROM generate_series(1, $1::int) n ON CONFLICT DO NOTHING`,
    [EXTRA_ENGINES],
  );
  await db.query(`UPDATE analyses SET engines = engines || ARRAY(SELECT 'extra_' || n FROM generate_series(1, $2::int) n) WHERE id = $1`, [
    a.id,
    EXTRA_ENGINES,
  ]);
  try {
    await db.query(
      `INSERT INTO prompts (id, analysis_id, text, language, created_at) VALUES (gen_random_uuid(), $1, 'One more', 'en', now())`,
      [a.id],
    );
  } catch (err) {
    refusal = err as { code?: string; message: string };
  }
}

let store: LocalStore;
let api: LocalApi;
let key: string;
beforeAll(async () => {
  ({ store, api, key } = await startOwnApi('geo_test_catalog', writeCatalogue));
}, 180_000);
afterAll(async () => {
  await api?.close();
  await store?.close();
});

describe('an analysis holds at most 500 prompts (migration 014)', () => {
  test('the 501st is refused by the database (23514 prompts_per_analysis), and the document says 500', async () => {
    expect(refusal).toMatchObject({ code: '23514' });
    expect(refusal?.message).toContain('"prompts_per_analysis"');
    const document = JSON.parse(await readFile('openapi/openapi.json', 'utf8'));
    expect(document.components.schemas.prompt_catalog.properties.items.maxItems).toBe(BOUND.prompts);
  });
});

describe('the largest catalogue the store accepts stays under 6 MB', () => {
  test('REST list_prompts: all 500 prompts whole in one reply, response and Lambda payload under 6 MB', async () => {
    const reply = await call(api, `/analyses/${slug}/prompts`, key);
    const body = expectServed(reply, listPrompts.output);
    expect({ items: body.items.length, total: body.total, truncated: body.truncated }).toEqual({
      items: BOUND.prompts,
      total: BOUND.prompts,
      truncated: false,
    });
    const last = body.items[0]!;
    expect({ text: last.text, group: last.group, language: last.language }).toEqual({
      text: worst(BOUND.text),
      group: { id: GROUP, name: worst(BOUND.groupName) },
      language: worst(BOUND.language),
    });
    const sizes = { body: Buffer.byteLength(reply.text), lambda: lambdaBytes(reply) };
    console.log(
      `largest catalogue, REST list_prompts: body ${sizes.body} bytes, Lambda response ${sizes.lambda} bytes (limit ${LAMBDA_LIMIT})`,
    );
    expect(sizes.lambda).toBeLessThan(LAMBDA_LIMIT);
  });

  test('MCP list_prompts, a default page of the largest catalogue: the page read in the store, under 6 MB', async () => {
    const reply = await rpc(api, key, toolCall('list_prompts', { analysis: slug, offset: BOUND.prompts - 100 }));
    expect(reply.status).toBe(200);
    const result = reply.body.result as CallToolResult;
    expect(result.isError).toBeFalsy();
    const page = result.structuredContent as { items: Array<{ text: unknown }>; total: number; truncated: boolean };
    expect({ items: page.items.length, total: page.total, truncated: page.truncated }).toEqual({
      items: 100,
      total: BOUND.prompts,
      truncated: false,
    });
    const sizes = { body: Buffer.byteLength(reply.text), lambda: lambdaBytes(reply) };
    console.log(`largest catalogue, MCP list_prompts page of 100: body ${sizes.body} bytes, Lambda response ${sizes.lambda} bytes`);
    expect(sizes.lambda).toBeLessThan(LAMBDA_LIMIT);
  });

  test('MCP list_prompts, the largest page the tool takes (its limit maximum) of the costliest prompts: under 6 MB', async () => {
    const tools = (await rpc(api, key, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).body.result.tools as Array<{
      name: string;
      inputSchema: { properties: { limit: { maximum: number } } };
    }>;
    const max = tools.find((t) => t.name === 'list_prompts')?.inputSchema.properties.limit.maximum as number;
    expect(max).toBeLessThan(BOUND.prompts);
    const reply = await rpc(api, key, toolCall('list_prompts', { analysis: slug, limit: max }));
    const page = (reply.body.result as CallToolResult).structuredContent as { items: unknown[] };
    expect(page.items).toHaveLength(max);
    const lambda = lambdaBytes(reply);
    console.log(`largest catalogue, MCP list_prompts page of ${max}: Lambda response ${lambda} bytes`);
    expect(lambda).toBeLessThan(LAMBDA_LIMIT);
  });
});

type PromptPage = { items: Array<{ prompt: { id: string }; engines: unknown[] }>; total: number; truncated: boolean };

describe("a page of a group's prompts outgrowing 6 MB is cut to fit, and the next page goes on from it", () => {
  test('REST limit 200: fewer prompts, truncated, under 6 MB; the next offset continues without a gap', async () => {
    const path = `/analyses/${slug}/groups/${GROUP}/prompts?window=90d`;
    const first = await call(api, `${path}&limit=200`, key);
    const page = expectServed(first, listGroupPrompts.output) as PromptPage;
    const lambda = lambdaBytes(first);
    console.log(
      `group prompts, REST limit 200 at ${page.items[0]?.engines.length} engines: ${page.items.length} prompts, Lambda response ${lambda} bytes`,
    );
    expect(lambda).toBeLessThan(LAMBDA_LIMIT);
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items.length).toBeLessThan(200);
    expect(page.truncated).toBe(true);
    // The list envelope's total counts every item over all pages, the cut page's included.
    expect(page.total).toBe(groupPrompts.length);
    const next = expectServed(await call(api, `${path}&offset=${page.items.length}&limit=1`, key), listGroupPrompts.output) as PromptPage;
    const whole = groupPrompts;
    expect([...page.items, ...next.items].map((i) => i.prompt.id)).toEqual(whole.slice(0, page.items.length + 1));
  });

  test('MCP limit 200 (its result carried twice): every page under 6 MB, the pages together every prompt once, in order', async () => {
    const seen: string[] = [];
    const sizes: number[] = [];
    let offset = 0;
    for (let pages = 0; pages < 50; pages++) {
      const reply = await rpc(
        api,
        key,
        toolCall('list_group_prompts', { analysis: slug, group: GROUP, window: '90d', limit: 200, offset }),
      );
      const result = reply.body.result as CallToolResult;
      expect(result.isError).toBeFalsy();
      sizes.push(lambdaBytes(reply));
      const page = result.structuredContent as PromptPage;
      expect(page.total).toBe(groupPrompts.length);
      seen.push(...page.items.map((i) => i.prompt.id));
      offset += page.items.length;
      if (!page.truncated) break;
      expect(page.items.length).toBeLessThan(200);
    }
    console.log(
      `group prompts, MCP limit 200: pages of ${seen.length} prompts in ${sizes.length} calls, Lambda responses up to ${Math.max(...sizes)} bytes`,
    );
    expect(Math.max(...sizes)).toBeLessThan(LAMBDA_LIMIT);
    expect(sizes.length).toBeGreaterThan(1);
    expect(seen).toEqual(groupPrompts);
  });
});
