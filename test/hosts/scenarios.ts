import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { reads } from '#shared/reads/registry.js';
import type { LocalApi } from '../../local/stack.js';
import { awayFromMinuteEdge, manifest, startTestApi } from '../support/api.js';
import type { HostRun } from './run-host.js';
import type { ToolStep } from './stand-ins/anthropic.js';
import type { StandIn } from './stand-ins/server.js';
import { direct, errorBody, expectBudget, expectErrorFirstLine, largestDefaultGroupPrompts, resultJson, withoutBudget } from './support.js';

/** What one host run left behind: the host's own output and every request its model received. */
export interface Session {
  run: HostRun;
  model: StandIn;
}

/** One real host, driven the same way in every scenario. */
export interface Host {
  /** As the tests name it, with its pinned version. */
  title: string;
  /** The host's executable; the scenarios skip when it is missing. */
  bin: string;
  install: string;
  /** The name the host gives one of our tools when it offers it to the model. */
  toolName(tool: string): string;
  /** Model turns the host needs before it can call these tools (Claude Code loads deferred tools first). */
  before(tools: string[]): ToolStep[];
  /** Runs the host once, configured from its docs page, against `api` with `key`; the model plays `steps`. */
  session(api: LocalApi, key: string, steps: ToolStep[]): Promise<Session>;
  /** Each tool result the model received, in call order, as the text the model reads. */
  results(model: StandIn): Array<{ name: string; text: string }>;
  /** Each request of the scripted conversation, as the JSON the model API received. */
  conversation(model: StandIn): string[];
  /** The most the host shows inline of one tool result (characters); longer ones it cuts or sets aside. */
  inlineLimit: number;
  /** Runs the documented check of the connection (the host's `mcp list`) with `key`. */
  verify(api: LocalApi, key: string): Promise<HostRun>;
  /** What that check prints for the server with a good key, and with a refused one. */
  connected: RegExp;
  rejected: RegExp;
  /** What the host tells the model when the server refused the key, if it tells it anything. */
  rejectedNotice?: RegExp;
}

const TIMEOUT = 300_000;
/** A key of the right shape that no workspace has. */
const WRONG_KEY = `geo_live_${'0'.repeat(40)}`;

/**
 * A real host between the API and a stand-in model. What the model receives is what a
 * user's assistant would reason from: the tool list, a result whole with the remaining budget, an error
 * with its code and parameter, a budget refusal with the wait, the largest default result uncut.
 */
export function describeHost(host: Host): void {
  if (!existsSync(host.bin)) {
    describe(host.title, () => {
      test.skip(`needs ${host.bin}: ${host.install}`, () => {});
    });
    return;
  }

  describe(host.title, () => {
    let api: LocalApi;
    let tiny: LocalApi;
    let main: Session;
    let refused: Session;
    let wrongKey: Session;
    let largest: { args: Record<string, string>; chars: number };
    const key = manifest.keys.workspace;
    const BAD_CURSOR = 'not-a-cursor';

    beforeAll(async () => {
      api = await startTestApi();
      // A plan of one call a minute: the first call succeeds with nothing left, the second is refused.
      tiny = await startTestApi({ PLAN_CEILINGS: JSON.stringify({ tiny: 1 }) });
      largest = await largestDefaultGroupPrompts(api, key);
      main = await host.session(api, key, [
        ...host.before(['list_analyses', 'list_group_prompts']),
        { tool: host.toolName('list_analyses'), input: {} },
        { tool: host.toolName('list_analyses'), input: { cursor: BAD_CURSOR } },
        { tool: host.toolName('list_group_prompts'), input: largest.args },
      ]);
      wrongKey = await host.session(api, WRONG_KEY, host.before(['list_analyses']));
      // Both calls of the refusal session fall in one budget minute.
      await awayFromMinuteEdge(40);
      refused = await host.session(tiny, manifest.keys.small_budget, [
        ...host.before(['list_analyses']),
        { tool: host.toolName('list_analyses'), input: {} },
        { tool: host.toolName('list_analyses'), input: {} },
      ]);
    }, TIMEOUT);
    afterAll(async () => {
      await Promise.all([main?.model.close(), refused?.model.close(), wrongKey?.model.close(), api?.close(), tiny?.close()]);
    });

    const ours = (s: Session) => host.results(s.model).filter((r) => reads.some((read) => host.toolName(read.name) === r.name));
    const completed = (s: Session) => {
      if (s.run.code !== 0 || s.run.timedOut) {
        throw new Error(`the host did not finish (exit ${s.run.code}, timed out: ${s.run.timedOut}):\n${s.run.stdout}\n${s.run.stderr}`);
      }
    };

    test('the key from the environment connects: one tool per read reaches the model by the host’s names, the key does not', () => {
      completed(main);
      const seen = host.conversation(main.model).join('\n');
      for (const read of reads) expect(seen).toContain(host.toolName(read.name));
      expect(seen).not.toContain(key);
      expect(ours(main).map((r) => r.name)).toEqual([
        host.toolName('list_analyses'),
        host.toolName('list_analyses'),
        host.toolName('list_group_prompts'),
      ]);
    });

    test('a wrong key: the host offers the model none of the tools', () => {
      completed(wrongKey);
      const [first] = host.conversation(wrongKey.model);
      for (const read of reads) expect(first).not.toContain(host.toolName(read.name));
      const told = host.results(wrongKey.model).map((r) => r.text);
      if (host.rejectedNotice) expect(told.join('\n')).toMatch(host.rejectedNotice);
    });

    test(
      'the documented check of the connection: connected with the key, refused with a wrong one',
      async () => {
        // Gemini CLI prints the list on stderr when its output is not a terminal.
        const good = await host.verify(api, key);
        expect(good.stdout + good.stderr).toMatch(host.connected);
        const bad = await host.verify(api, WRONG_KEY);
        expect(bad.stdout + bad.stderr).toMatch(host.rejected);
      },
      TIMEOUT,
    );

    test('a result reaches the model whole: the same body a direct call gets', async () => {
      const [first] = ours(main);
      const reference = await direct(api, key, 'list_analyses', {});
      expect(withoutBudget(resultJson(first?.text ?? ''))).toEqual(withoutBudget(reference.structuredContent as Record<string, unknown>));
    });

    test('a success result shows the model its remaining budget', () => {
      const [first] = ours(main);
      expectBudget(resultJson(first?.text ?? ''));
      const [spent] = ours(refused);
      expect(resultJson(spent?.text ?? '').rate_limit).toEqual({ per_minute: 1, remaining: 0, reset_after_seconds: expect.any(Number) });
    });

    test('an error: the model sees the code and the parameter in the JSON body', () => {
      const error = ours(main)[1]?.text ?? '';
      expect(errorBody(error).error).toEqual(expect.objectContaining({ code: 'invalid_request', param: 'cursor' }));
    });

    test('an error: its first line says the code and the parameter in words', () => {
      expectErrorFirstLine(ours(main)[1]?.text ?? '', 'invalid_request', { param: 'cursor' });
    });

    test('a budget refusal: the model sees rate_limited and how many seconds to wait', () => {
      completed(refused);
      const [, refusal] = ours(refused);
      const text = refusal?.text ?? '';
      expect(errorBody(text).error.code).toBe('rate_limited');
      expectErrorFirstLine(text, 'rate_limited', { retry: true });
      const seconds = Number(/ Retry in (\d+) seconds?\./.exec(text)?.[1]);
      expect(seconds).toBeGreaterThanOrEqual(0);
      expect(seconds).toBeLessThanOrEqual(60);
      expect(errorBody(text).rate_limit).toEqual({ per_minute: 1, remaining: 0, reset_after_seconds: seconds });
    });

    test(`the largest default result (list_group_prompts on the demo) reaches the model whole, not cut, not set aside`, async () => {
      const received = ours(main)[2]?.text ?? '';
      expect(largest.chars).toBeLessThanOrEqual(host.inlineLimit);
      const reference = await direct(api, key, 'list_group_prompts', largest.args);
      expect(withoutBudget(resultJson(received))).toEqual(withoutBudget(reference.structuredContent as Record<string, unknown>));
    });
  });
}
