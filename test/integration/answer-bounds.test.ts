import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { getAnswer } from '#shared/reads/catalog/answers.js';
import type { Queryable } from '#shared/store/queryable.js';
import type { LocalApi } from '../../local/stack.js';
import type { LocalStore } from '../../local/stores.js';
import { unwrapUntrusted } from '../mcp/args.js';
import { connect, rpc, toolCall } from '../mcp/support.js';
import { call, expectServed, LAMBDA_LIMIT, lambdaBytes } from '../support/api.js';
import { startOwnApi } from '../support/own-store.js';

/**
 * What one stored answer can weigh (migration 007, docs/data-contract.md "Bounds"): the store refuses a row
 * past any bound, and the largest answer it accepts, every string at its bound and made of the character
 * that costs most once escaped, stays under the 6 MB a Lambda function may answer, through REST and MCP.
 * The bounds are written out here from the data contract, not imported from the code.
 */
const BOUND = {
  text: 100_000,
  mentions: 100,
  brand: 200,
  citations: 100,
  url: 2_048,
  domain: 253,
  prompt: 1_000,
  recipe: 100,
  engine: 64,
};

/**
 * A C0 control is the costliest character: \u0001 (6 bytes) in a JSON string; inside MCP's text block,
 * which is a JSON string holding JSON, \\u0001 (7); and once more in the Lambda response, which carries the
 * HTTP body as a JSON string (7 and 9).
 */
const WORST = '\u0001';
const worst = (n: number) => WORST.repeat(n);

const MAX_ANSWER = 'e1000000-0000-4000-8000-000000000001';
const SPARE_ANSWER = 'e1000000-0000-4000-8000-000000000002';
const MAX_PROMPT = 'e1000000-0000-4000-8000-000000000003';
const MAX_ENGINE = worst(BOUND.engine);

type Outcome = { refused: false } | { refused: true; sqlstate: string; message: string };
const outcomes = new Map<string, Outcome>();

/** Through the owner connection, as the pipeline writes: the largest answer allowed, then a row past each bound. */
async function writeAnswers(db: Queryable): Promise<void> {
  const { rows } = await db.query<{ run: string; analysis: string; at: Date; competitor: string }>(
    `SELECT r.id AS run, r.analysis_id AS analysis, r.collected_at AS at,
            (SELECT c.id FROM competitors c WHERE c.analysis_id = r.analysis_id ORDER BY c.name LIMIT 1) AS competitor
       FROM runs r JOIN analyses a ON a.id = r.analysis_id
      WHERE a.slug = 'acme-core' AND r.state = 'finished' ORDER BY r.started_at DESC LIMIT 1`,
  );
  const r = rows[0]!;
  const answer = (id: string, text: string, recipe: string | null, prompt = MAX_PROMPT, engine = MAX_ENGINE) =>
    db.query(
      `INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state, recipe)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'extracted', $8)`,
      [id, r.analysis, r.run, prompt, engine, r.at, text, recipe],
    );
  await db.query(`INSERT INTO engines (key, name) VALUES ($1, 'Longest key')`, [MAX_ENGINE]);
  // An answer comes from one of its run's engines (migration 025).
  await db.query(
    `INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed) VALUES ($1, $2, 'done', 2, 2, 2, 0)`,
    [r.run, MAX_ENGINE],
  );
  await db.query(`INSERT INTO prompts (id, analysis_id, group_id, text, language, created_at) VALUES ($1, $2, NULL, $3, 'en', $4)`, [
    MAX_PROMPT,
    r.analysis,
    worst(BOUND.prompt),
    r.at,
  ]);
  await answer(MAX_ANSWER, worst(BOUND.text), worst(BOUND.recipe));
  // Each mention as long as it can be: a direct competitor (kind and id both longer than null) with a
  // three-decimal negative sentiment.
  for (let p = 1; p <= BOUND.mentions; p += 1) {
    await db.query(
      `INSERT INTO mentions (answer_id, position, brand_name, is_tracked, competitor_id, sentiment) VALUES ($1, $2, $3, false, $4, -0.999)`,
      [MAX_ANSWER, p, worst(BOUND.brand), r.competitor],
    );
  }
  for (let o = 1; o <= BOUND.citations; o += 1) {
    await db.query(`INSERT INTO citations (answer_id, ordinal, url, domain) VALUES ($1, $2, $3, $4)`, [
      MAX_ANSWER,
      o,
      worst(BOUND.url),
      worst(BOUND.domain),
    ]);
  }
  await answer(SPARE_ANSWER, 'spare', null);

  // One past each bound; each statement on its own, so one refusal does not hide the next.
  const attempt = async (label: string, sql: string, params: unknown[]): Promise<void> => {
    try {
      await db.query(sql, params);
      outcomes.set(label, { refused: false });
    } catch (err) {
      const e = err as { code?: string; message: string };
      outcomes.set(label, { refused: true, sqlstate: String(e.code), message: e.message });
    }
  };
  const insertAnswer = `INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state, recipe)
                        VALUES (gen_random_uuid(), $1, $2, $3, 'chatgpt', $4, $5, 'extracted', $6)`;
  await attempt('answers_text_length', insertAnswer, [r.analysis, r.run, MAX_PROMPT, r.at, worst(BOUND.text + 1), null]);
  await attempt('answers_recipe_length', insertAnswer, [r.analysis, r.run, MAX_PROMPT, r.at, 'text', worst(BOUND.recipe + 1)]);
  await attempt('mentions_position_bound', `INSERT INTO mentions (answer_id, position, brand_name) VALUES ($1, $2, 'Acme')`, [
    SPARE_ANSWER,
    BOUND.mentions + 1,
  ]);
  await attempt('mentions_brand_name_length', `INSERT INTO mentions (answer_id, position, brand_name) VALUES ($1, 1, $2)`, [
    SPARE_ANSWER,
    worst(BOUND.brand + 1),
  ]);
  const insertCitation = `INSERT INTO citations (answer_id, ordinal, url, domain) VALUES ($1, $2, $3, $4)`;
  await attempt('citations_ordinal_bound', insertCitation, [SPARE_ANSWER, BOUND.citations + 1, 'https://a.example/', 'a.example']);
  await attempt('citations_url_length', insertCitation, [SPARE_ANSWER, 1, worst(BOUND.url + 1), 'a.example']);
  await attempt('citations_domain_length', insertCitation, [SPARE_ANSWER, 1, 'https://a.example/', worst(BOUND.domain + 1)]);
  await attempt(
    'prompts_text_length',
    `INSERT INTO prompts (id, analysis_id, text, language, created_at) VALUES (gen_random_uuid(), $1, $2, 'en', $3)`,
    [r.analysis, worst(BOUND.prompt + 1), r.at],
  );
  await attempt(
    'run_engines_recipe_length',
    `INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed, recipe) VALUES ($1, $2, 'done', 0, 0, 0, 0, $3)`,
    [r.run, MAX_ENGINE, worst(BOUND.recipe + 1)],
  );
  await attempt('engines_key_length', `INSERT INTO engines (key, name) VALUES ($1, 'Too long')`, [worst(BOUND.engine + 1)]);
}

let store: LocalStore;
let api: LocalApi;
let client: Client;
let key: string;
beforeAll(async () => {
  ({ store, api, key } = await startOwnApi('geo_test_bounds', writeAnswers));
  client = await connect(api, key);
}, 180_000);
afterAll(async () => {
  await client?.close();
  await api?.close();
  await store?.close();
});

describe('the store bounds what one answer can weigh (migration 007)', () => {
  test.each([
    'answers_text_length',
    'answers_recipe_length',
    'mentions_position_bound',
    'mentions_brand_name_length',
    'citations_ordinal_bound',
    'citations_url_length',
    'citations_domain_length',
    'prompts_text_length',
    'run_engines_recipe_length',
    'engines_key_length',
  ])('one past the bound is refused by the database: %s (23514)', (constraint) => {
    const outcome = outcomes.get(constraint);
    expect(outcome).toMatchObject({ refused: true, sqlstate: '23514' });
    expect((outcome as { message: string }).message).toContain(`"${constraint}"`);
  });
});

describe('the largest answer the store accepts stays under 6 MB, through REST and MCP', () => {
  const path = () => `/analyses/${store.manifest!.analyses.collected}/answers/${MAX_ANSWER}`;
  const args = () => ({ analysis: store.manifest!.analyses.collected, answer: MAX_ANSWER });

  test('REST get_answer: every string whole, response and Lambda payload under 6 MB', async () => {
    const reply = await call(api, path(), key);
    const body = expectServed(reply, getAnswer.output);
    expect(body.text).toBe(worst(BOUND.text));
    expect(body.prompt.text).toBe(worst(BOUND.prompt));
    expect(body.mentions).toHaveLength(BOUND.mentions);
    expect(body.citations).toHaveLength(BOUND.citations);
    expect(body.citations![BOUND.citations - 1]).toEqual({ position: BOUND.citations, url: worst(BOUND.url), domain: worst(BOUND.domain) });
    const sizes = { body: Buffer.byteLength(reply.text), lambda: lambdaBytes(reply) };
    console.log(`largest answer, REST get_answer: body ${sizes.body} bytes, Lambda response ${sizes.lambda} bytes (limit ${LAMBDA_LIMIT})`);
    expect(sizes.lambda).toBeLessThan(LAMBDA_LIMIT);
  });

  test('MCP get_answer (raw JSON-RPC): response and Lambda payload under 6 MB', async () => {
    const reply = await rpc(api, key, toolCall('get_answer', args()));
    expect(reply.status).toBe(200);
    const result = reply.body.result as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect((unwrapUntrusted(result.structuredContent) as { text: string }).text).toBe(worst(BOUND.text));
    const sizes = { body: Buffer.byteLength(reply.text), lambda: lambdaBytes(reply) };
    console.log(`largest answer, MCP get_answer: body ${sizes.body} bytes, Lambda response ${sizes.lambda} bytes (limit ${LAMBDA_LIMIT})`);
    expect(sizes.lambda).toBeLessThan(LAMBDA_LIMIT);
  });

  test('MCP get_answer through the SDK client: the result validates against the tool’s output schema, the text whole in both parts', async () => {
    const result = (await client.callTool({ name: 'get_answer', arguments: args() })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const sc = unwrapUntrusted(result.structuredContent) as { text: string; mentions: unknown[]; citations: unknown[] };
    expect([sc.text === worst(BOUND.text), sc.mentions.length, sc.citations.length]).toEqual([true, BOUND.mentions, BOUND.citations]);
    const block = (result.content[0] as { text: string }).text.split('\n');
    expect(unwrapUntrusted(JSON.parse(block[2] as string))).toEqual(sc);
  });
});
