import type { ServerResponse } from 'node:http';
import type { ToolResult, ToolStep } from './anthropic.js';
import { FINAL_TEXT } from './anthropic.js';
import { json, type Recorded, type StandIn, sse, startStandIn } from './server.js';

/**
 * An OpenAI Responses API stand-in for Codex CLI (a model provider whose base_url is this server):
 * POST /v1/responses, answered as the stream Codex asks for. The conversation that offers tools is
 * scripted, one function call per turn, then a closing text; any other request gets a short text.
 */
export async function startOpenAiStandIn(steps: ToolStep[]): Promise<StandIn> {
  let ids = 0;
  return startStandIn((req, res) => {
    if (req.method === 'GET' && /^\/v1\/models\b/.test(req.path)) return json(res, 200, { object: 'list', data: [] });
    if (req.method !== 'POST' || !/^\/v1\/responses\b/.test(req.path)) {
      return json(res, 404, { error: { type: 'not_found', message: `no ${req.method} ${req.path} here` } });
    }
    const body = req.body ?? {};
    const step = isScripted(req) ? steps[functionCalls(body.input ?? []).length] : undefined;
    const n = ++ids;
    const item = step
      ? {
          type: 'function_call',
          id: `fc_standin_${n}`,
          call_id: `call_standin_${n}`,
          ...called(step.tool),
          arguments: JSON.stringify(step.input),
        }
      : {
          type: 'message',
          id: `msg_standin_${n}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: isScripted(req) ? FINAL_TEXT : 'ok', annotations: [] }],
        };
    reply(res, `resp_standin_${n}`, body.model ?? 'stand-in', item);
  });
}

function reply(res: ServerResponse, id: string, model: string, item: Record<string, unknown>): void {
  const usage = {
    input_tokens: 1,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 1,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 2,
  };
  const response = { id, object: 'response', model, status: 'in_progress', output: [] as unknown[] };
  sse(res, [
    { event: 'response.created', data: { type: 'response.created', response } },
    { event: 'response.output_item.added', data: { type: 'response.output_item.added', output_index: 0, item } },
    { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: 0, item } },
    {
      event: 'response.completed',
      data: { type: 'response.completed', response: { ...response, status: 'completed', output: [item], usage } },
    },
  ]);
}

/** A tool offered inside a namespace (`<namespace>.<tool>`, as Codex offers an MCP server's) is called with both. */
function called(tool: string): { name: string; namespace?: string } {
  const dot = tool.lastIndexOf('.');
  return dot < 0 ? { name: tool } : { namespace: tool.slice(0, dot), name: tool.slice(dot + 1) };
}

const isScripted = (r: Recorded): boolean => Array.isArray(r.body?.tools) && r.body.tools.length > 0;

/** The model's function calls in a request's input, each by its qualified name (`<namespace>.<tool>` in a namespace). */
function functionCalls(input: any[]): Array<{ call_id: string; name: string }> {
  return input
    .filter((i) => i?.type === 'function_call')
    .map((i) => ({ call_id: i.call_id, name: i.namespace ? `${i.namespace}.${i.name}` : i.name }));
}

/** The qualified names of the tools offered in the conversation's first request, a namespace's tools included. */
export function offeredTools(standIn: StandIn): string[] {
  return (conversation(standIn)[0]?.body.tools ?? []).flatMap((t: any) =>
    t.type === 'namespace' ? (t.tools ?? []).map((f: any) => `${t.name}.${f.name}`) : t.name ? [t.name] : [],
  );
}

/** The scripted conversation's requests (those that offer tools), in order. */
export const conversation = (standIn: StandIn): Recorded[] =>
  standIn.requests.filter((r) => /^\/v1\/responses\b/.test(r.path) && isScripted(r));

/** The text of a function_call_output's output: a string, or content items of which the text ones count. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((c: any) => (typeof c?.text === 'string' ? c.text : '')).join('');
  return JSON.stringify(output);
}

/** Every function call output of the last request of the conversation, in call order. */
export function toolResults(standIn: StandIn): ToolResult[] {
  const input: any[] = conversation(standIn).at(-1)?.body.input ?? [];
  const names = new Map(functionCalls(input).map((c) => [c.call_id, c.name]));
  return input
    .filter((i) => i?.type === 'function_call_output')
    .map((i) => ({ name: names.get(i.call_id) ?? '', content: outputText(i.output), isError: false }));
}
