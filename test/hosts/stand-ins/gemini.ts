import type { ServerResponse } from 'node:http';
import type { ToolResult, ToolStep } from './anthropic.js';
import { FINAL_TEXT } from './anthropic.js';
import { json, type Recorded, type StandIn, sse, startStandIn } from './server.js';

/**
 * A Gemini API stand-in for Gemini CLI (GOOGLE_GEMINI_BASE_URL): POST /v1beta/models/<model>:generateContent
 * and :streamGenerateContent?alt=sse. The conversation that carries function declarations is scripted,
 * one function call per turn, then a closing text. The CLI's side requests (its model router, and any
 * other check that asks for JSON under a response schema) get the plainest object of that schema.
 */
export async function startGeminiStandIn(steps: ToolStep[]): Promise<StandIn> {
  return startStandIn((req, res) => {
    const m = /^\/v1beta\/models\/([^:/?]+):(generateContent|streamGenerateContent|countTokens)/.exec(req.path);
    if (req.method !== 'POST' || !m)
      return json(res, 404, { error: { code: 404, message: `no ${req.method} ${req.path} here`, status: 'NOT_FOUND' } });
    if (m[2] === 'countTokens') return json(res, 200, { totalTokens: 1 });
    const body = req.body ?? {};
    const schema = body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema;
    let part: Record<string, unknown>;
    if (isScripted(req)) {
      const step = steps[functionCalls(body.contents ?? []).length];
      part = step ? { functionCall: { name: step.tool, args: step.input } } : { text: FINAL_TEXT };
    } else {
      part = { text: schema ? JSON.stringify(plainest(schema)) : 'ok' };
    }
    reply(res, m[2] === 'streamGenerateContent', m[1] as string, part);
  });
}

function reply(res: ServerResponse, stream: boolean, model: string, part: Record<string, unknown>): void {
  const chunk = {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    modelVersion: model,
  };
  if (stream) sse(res, [{ data: chunk }]);
  else json(res, 200, chunk);
}

/** The simplest value a JSON schema (OpenAPI-style upper-case types too) accepts; `user` where a speaker is asked for. */
function plainest(schema: any): unknown {
  const type = String(schema?.type ?? 'object').toLowerCase();
  if (Array.isArray(schema?.enum)) return schema.enum.includes('user') ? 'user' : schema.enum[0];
  if (type === 'object') return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, plainest(v)]));
  if (type === 'array') return [];
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return false;
  return 'user';
}

const isScripted = (r: Recorded): boolean =>
  Array.isArray(r.body?.tools) && r.body.tools.some((t: any) => Array.isArray(t.functionDeclarations) && t.functionDeclarations.length > 0);

function functionCalls(contents: any[]): Array<{ name: string }> {
  return contents
    .filter((c) => c.role === 'model')
    .flatMap((c) => (c.parts ?? []).filter((p: any) => p.functionCall).map((p: any) => p.functionCall));
}

/** The scripted conversation's requests (those that declare functions), in order. */
export const conversation = (standIn: StandIn): Recorded[] => standIn.requests.filter(isScripted);

/** The names of the functions declared to the model in the conversation's first request. */
export const declaredTools = (standIn: StandIn): string[] =>
  (conversation(standIn)[0]?.body.tools ?? []).flatMap((t: any) => (t.functionDeclarations ?? []).map((f: any) => f.name));

/** Every function response of the last request of the conversation, in call order. */
export function toolResults(standIn: StandIn): ToolResult[] {
  const contents: any[] = conversation(standIn).at(-1)?.body.contents ?? [];
  return contents
    .filter((c) => c.role === 'user')
    .flatMap((c) => (c.parts ?? []).filter((p: any) => p.functionResponse))
    .map((p: any) => ({
      name: p.functionResponse.name,
      content: p.functionResponse.response,
      isError: 'error' in (p.functionResponse.response ?? {}),
    }));
}

/**
 * The user's first turn as the model received it: the text parts of the conversation's first request
 * after the CLI's own session context. A part that is one JSON string (how the CLI submits an MCP
 * prompt's text) is read as the string it holds.
 */
export function userTurn(standIn: StandIn): string {
  const contents: any[] = conversation(standIn)[0]?.body.contents ?? [];
  return contents
    .filter((c) => c.role === 'user')
    .flatMap((c) => (c.parts ?? []).map((p: any) => (typeof p.text === 'string' ? p.text : '')))
    .filter((t: string) => !t.startsWith('<session_context>'))
    .map((t: string) => {
      if (!t.startsWith('"')) return t;
      try {
        const held = JSON.parse(t);
        return typeof held === 'string' ? held : t;
      } catch {
        return t;
      }
    })
    .join('\n');
}
