import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { reads } from '#shared/reads/registry.js';
import type { LocalApi } from '../../local/stack.js';
import { awayFromMinuteEdge, manifest, startTestApi } from '../support/api.js';
import type { HostRun } from './run-host.js';
import type { ToolStep } from './stand-ins/anthropic.js';
import type { StandIn } from './stand-ins/server.js';
import {
  direct,
  errorBody,
  expectBudget,
  expectErrorFirstLine,
  largestDefaultGroupPrompts,
  listedPrompts,
  promptTexts,
  resourceText,
  resultJson,
  withoutBudget,
} from './support.js';

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
  /**
   * Runs the host once, configured from its docs page, against `api` with `key`; the model plays `steps`.
   * `input` is what the user types (a prompt's command), `roomy` adds the page's setting for larger results.
   */
  session(api: LocalApi, key: string, steps: ToolStep[], opts?: { input?: string; roomy?: boolean }): Promise<Session>;
  /** The tools the host offered its model, by the host's names; by default, the names in the conversation's first request. */
  offered?(model: StandIn): string[];
  /** Each tool result the model received, in call order, as the text the model reads. */
  results(model: StandIn): Array<{ name: string; text: string }>;
  /** Each request of the scripted conversation, as the JSON the model API received. */
  conversation(model: StandIn): string[];
  /** The most the host shows inline of one tool result (characters); longer ones it cuts or sets aside. */
  inlineLimit: number;
  /**
   * For a host that cuts a longer result (and says so in it): the mark it leaves, and whether the page's
   * setting for larger results (`roomy`) lets the largest default result through whole.
   */
  cut?: { marker: RegExp; roomy: boolean };
  /** Runs the documented check of the connection (the host's `mcp list`) with `key`. */
  verify(api: LocalApi, key: string): Promise<HostRun>;
  /** What that check prints for the server with a good key, and with a refused one (when it connects at all). */
  connected: RegExp;
  rejected?: RegExp;
  /** What the host tells the model when the server refused the key, if it tells it anything. */
  rejectedNotice?: RegExp;
  /** What the host prints (for its user, not its model) when the server refused the key. */
  rejectedOutput?: RegExp;
  /**
   * MCP prompts, for a host that offers them to its user: the command that runs one with these arguments,
   * as the host's page writes it, and the user's turn as the model received it (host wrapping taken off).
   */
  prompts?: { command(name: string, args: Record<string, string>): string; userTurn(model: StandIn): string };
  /**
   * MCP resources, for a host that lets its model list and read them with tools of its own: the model
   * turns that list the server's resources and read one, and what the model received of each.
   */
  resources?: {
    steps(uri: string): ToolStep[];
    listed(model: StandIn): string;
    read(model: StandIn): string;
    /** The most bytes of a resource the host passes on whole, when it cuts longer ones whatever its settings. */
    cutOver?: number;
  };
}

/** The server's resource: what each figure means and how it is computed. */
export const METHODOLOGY = 'geo://methodology';

/** The server's MCP prompts: each a ready-made question about one analysis (its argument `analysis`). */
export const PROMPTS = ['weekly_pulse', 'competitor_radar', 'latest_run_changes', 'invisible_by_engine'] as const;

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
    let roomy: Session | undefined;
    /** The page the tool descriptions advise for a host that shows less: one prompt of the largest group. */
    const smaller = () => ({ ...largest.args, limit: 1 });
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
        { tool: host.toolName('list_group_prompts'), input: smaller() },
        ...(host.resources?.steps(METHODOLOGY) ?? []),
      ]);
      if (host.cut?.roomy) {
        roomy = await host.session(
          api,
          key,
          [...host.before(['list_group_prompts']), { tool: host.toolName('list_group_prompts'), input: largest.args }],
          {
            roomy: true,
          },
        );
      }
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
      await Promise.all([
        main?.model.close(),
        refused?.model.close(),
        wrongKey?.model.close(),
        roomy?.model.close(),
        api?.close(),
        tiny?.close(),
      ]);
    });
    /** What the model was offered before it did anything: the tools of the conversation's first request. */
    const offered = (s: Session) => (host.offered ? host.offered(s.model).join('\n') : (host.conversation(s.model)[0] ?? ''));

    const ours = (s: Session) => host.results(s.model).filter((r) => reads.some((read) => host.toolName(read.name) === r.name));
    const completed = (s: Session) => {
      if (s.run.code !== 0 || s.run.timedOut) {
        throw new Error(`the host did not finish (exit ${s.run.code}, timed out: ${s.run.timedOut}):\n${s.run.stdout}\n${s.run.stderr}`);
      }
    };

    test('the key from the environment connects: one tool per read reaches the model by the host’s names, the key does not', () => {
      completed(main);
      for (const read of reads) expect(offered(main)).toContain(host.toolName(read.name));
      expect(host.conversation(main.model).join('\n')).not.toContain(key);
      expect(ours(main).map((r) => r.name)).toEqual([
        host.toolName('list_analyses'),
        host.toolName('list_analyses'),
        host.toolName('list_group_prompts'),
        host.toolName('list_group_prompts'),
      ]);
    });

    test('a wrong key: the host offers the model none of the tools', () => {
      completed(wrongKey);
      expect(host.conversation(wrongKey.model).length).toBeGreaterThan(0);
      for (const read of reads) expect(offered(wrongKey)).not.toContain(host.toolName(read.name));
      const told = host.results(wrongKey.model).map((r) => r.text);
      if (host.rejectedNotice) expect(told.join('\n')).toMatch(host.rejectedNotice);
      if (host.rejectedOutput) expect(wrongKey.run.stdout + wrongKey.run.stderr).toMatch(host.rejectedOutput);
      expect(wrongKey.run.stdout + wrongKey.run.stderr).not.toContain(WRONG_KEY);
    });

    test(
      'the documented check of the connection: connected with the key, refused with a wrong one',
      async () => {
        // Gemini CLI prints the list on stderr when its output is not a terminal.
        const good = await host.verify(api, key);
        expect(good.stdout + good.stderr).toMatch(host.connected);
        expect(good.stdout + good.stderr).not.toContain(key);
        if (host.rejected) {
          const bad = await host.verify(api, WRONG_KEY);
          expect(bad.stdout + bad.stderr).toMatch(host.rejected);
        }
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

    if (!host.cut) {
      test(`the largest default result (list_group_prompts on the demo) reaches the model whole, not cut, not set aside`, async () => {
        const received = ours(main)[2]?.text ?? '';
        expect(largest.chars).toBeLessThanOrEqual(host.inlineLimit);
        const reference = await direct(api, key, 'list_group_prompts', largest.args);
        expect(withoutBudget(resultJson(received))).toEqual(withoutBudget(reference.structuredContent as Record<string, unknown>));
      });
    } else {
      const cut = host.cut;
      test(`the largest default result (list_group_prompts on the demo) is cut as the page says: its start, the host's mark, its end`, async () => {
        const received = ours(main)[2]?.text ?? '';
        expect(largest.chars).toBeGreaterThan(host.inlineLimit);
        const reference = await direct(api, key, 'list_group_prompts', largest.args);
        const whole = (reference.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');
        expect(received).toMatch(cut.marker);
        expect(received.length).toBeLessThan(whole.length);
        const [head = '', tail = ''] = received.split(cut.marker);
        expect(whole.startsWith(head)).toBe(true);
        // The budget at the very end differs between the two calls; the rest of the end is the same.
        expect(whole.slice(0, whole.lastIndexOf('"rate_limit"'))).toContain(tail.slice(0, Math.max(0, tail.lastIndexOf('"rate_limit"'))));
      });
      if (cut.roomy) {
        test('with the page’s setting for larger results, the largest default result reaches the model whole', async () => {
          completed(roomy!);
          const [received] = ours(roomy!);
          const reference = await direct(api, key, 'list_group_prompts', largest.args);
          expect(received?.text ?? '').not.toMatch(cut.marker);
          expect(withoutBudget(resultJson(received?.text ?? ''))).toEqual(
            withoutBudget(reference.structuredContent as Record<string, unknown>),
          );
        });
      }
    }

    test('asking for less, as the tool description advises (one prompt a page), reaches the model whole', async () => {
      const received = ours(main)[3]?.text ?? '';
      const reference = await direct(api, key, 'list_group_prompts', smaller());
      const whole = (reference.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');
      expect(whole.length).toBeLessThanOrEqual(host.inlineLimit);
      expect(withoutBudget(resultJson(received))).toEqual(withoutBudget(reference.structuredContent as Record<string, unknown>));
    });

    const resources = host.resources;
    if (resources) {
      test(`the methodology resource (${METHODOLOGY}), listed and read with the host’s own tools, reaches the model as the page says`, async () => {
        completed(main);
        expect(resources.listed(main.model)).toContain(METHODOLOGY);
        const whole = await resourceText(api, key, METHODOLOGY);
        const received = resources.read(main.model);
        if (resources.cutOver === undefined || Buffer.byteLength(whole) <= resources.cutOver) {
          expect(received).toBe(whole);
        } else {
          // Over what the host keeps of a resource: its start, the host's mark, its end, as the page says.
          const marker = host.cut?.marker ?? /$^/;
          expect(received).toMatch(marker);
          const [head = '', tail = ''] = received.split(marker);
          expect(head.length).toBeGreaterThan(1000);
          // The host cuts the JSON text of its answer, so the cut may split an escape sequence (the `\n` of
          // a line break, read back as `n`): the one character either side of its mark may differ.
          expect(whole.startsWith(head.slice(0, -1))).toBe(true);
          expect(whole.endsWith(tail.slice(1))).toBe(true);
        }
      });
    }

    const prompts = host.prompts;
    if (prompts) {
      describe('MCP prompts, run as the host runs them (a command of its own)', () => {
        const analysis = manifest.analyses.collected;
        let listed: string[] = [];
        const runs = new Map<string, Session>();
        beforeAll(async () => {
          listed = await listedPrompts(api, key);
          const ready = PROMPTS.filter((name) => listed.includes(name));
          const sessions = await Promise.all(
            ready.map((name) => host.session(api, key, [], { input: prompts.command(name, { analysis }) })),
          );
          for (const [i, name] of ready.entries()) runs.set(name, sessions[i] as Session);
        }, TIMEOUT);
        afterAll(async () => {
          await Promise.all([...runs.values()].map((r) => r.model.close()));
        });

        test.each(PROMPTS)('%s: the model receives the text the API gives for it', async (name) => {
          expect(listed).toContain(name);
          const run = runs.get(name)!;
          completed(run);
          const texts = await promptTexts(api, key, name, { analysis });
          expect(texts.length).toBeGreaterThan(0);
          const received = prompts.userTurn(run.model);
          for (const text of texts) expect(received).toContain(text);
          expect(host.conversation(run.model).join('\n')).not.toContain(key);
        });
      });
    }
  });
}
