import type { ServerResponse } from 'node:http';
import { json, type Recorded, type StandIn, sse, startStandIn } from './server.js';

/** One tool call the stand-in model makes, by the name the host gave the tool. */
export interface ToolStep {
  tool: string;
  input: Record<string, unknown>;
}

/** What the host sent back for one tool call, exactly as the model would read it. */
export interface ToolResult {
  name: string;
  /** A string, or the content blocks ({type: 'text', text} ...) the host built. */
  content: unknown;
  isError: boolean;
}

export const FINAL_TEXT = 'Done: the stand-in model has read the tool results.';

/**
 * An Anthropic Messages API stand-in for Claude Code (ANTHROPIC_BASE_URL): the conversation that carries
 * tools is scripted, one tool call per turn, then a closing text; any other request (a title, a summary)
 * gets a short text. Streaming as the host asks for it (SSE), or one JSON message.
 */
export async function startAnthropicStandIn(steps: ToolStep[]): Promise<StandIn> {
  let ids = 0;
  return startStandIn((req, res) => {
    if (req.method === 'POST' && req.path.startsWith('/v1/messages/count_tokens')) return json(res, 200, { input_tokens: 1 });
    if (req.method !== 'POST' || !req.path.startsWith('/v1/messages')) {
      return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `no ${req.method} ${req.path} here` } });
    }
    const body = req.body ?? {};
    const scripted = Array.isArray(body.tools) && body.tools.length > 0;
    const done = toolUses(body.messages ?? []).length;
    const step = scripted ? steps[done] : undefined;
    const block = step
      ? { type: 'tool_use', id: `toolu_standin_${++ids}`, name: step.tool, input: step.input }
      : { type: 'text', text: scripted ? FINAL_TEXT : 'ok' };
    reply(res, body, block);
  });
}

function reply(res: ServerResponse, body: any, block: { type: string; [k: string]: unknown }): void {
  const stopReason = block.type === 'tool_use' ? 'tool_use' : 'end_turn';
  const message = {
    id: `msg_standin_${Date.now()}`,
    type: 'message',
    role: 'assistant',
    model: body.model ?? 'stand-in',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
  if (!body.stream) {
    json(res, 200, { ...message, content: [block], stop_reason: stopReason });
    return;
  }
  const start = block.type === 'tool_use' ? { ...block, input: {} } : { type: 'text', text: '' };
  const delta =
    block.type === 'tool_use'
      ? { type: 'input_json_delta', partial_json: JSON.stringify(block.input) }
      : { type: 'text_delta', text: block.text };
  sse(res, [
    { event: 'message_start', data: { type: 'message_start', message: { ...message, content: [], stop_reason: null } } },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: start } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    {
      event: 'message_delta',
      data: { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 1 } },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]);
}

function toolUses(messages: any[]): Array<{ id: string; name: string }> {
  return messages
    .filter((m) => m.role === 'assistant' && Array.isArray(m.content))
    .flatMap((m) => m.content.filter((b: any) => b.type === 'tool_use'));
}

/** The scripted conversation's requests (those that offer tools), in order. */
export const conversation = (standIn: StandIn): Recorded[] =>
  standIn.requests.filter((r) => r.path.startsWith('/v1/messages') && Array.isArray(r.body?.tools) && r.body.tools.length > 0);

/** Every tool result of the last request of the conversation, in call order. */
export function toolResults(standIn: StandIn): ToolResult[] {
  const last = conversation(standIn).at(-1);
  const messages: any[] = last?.body.messages ?? [];
  const names = new Map(toolUses(messages).map((u) => [u.id, u.name]));
  return messages
    .filter((m) => m.role === 'user' && Array.isArray(m.content))
    .flatMap((m) => m.content.filter((b: any) => b.type === 'tool_result'))
    .map((b: any) => ({ name: names.get(b.tool_use_id) ?? '', content: b.content, isError: b.is_error === true }));
}

/** The user's first turn as the model received it: the text blocks of the conversation's first message. */
export function userTurn(standIn: StandIn): string {
  const [first] = conversation(standIn)[0]?.body.messages ?? [];
  const content = first?.content;
  if (typeof content === 'string') return content;
  return (Array.isArray(content) ? content : []).map((b: any) => (b.type === 'text' ? b.text : '')).join('\n');
}
