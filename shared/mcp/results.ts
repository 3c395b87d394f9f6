import { type ApiError, errorBody } from '../errors.js';
import type { RateLimit } from '../store/budget.js';

/**
 * The JSON Schema of `rate_limit`, added to every tool's outputSchema: bare, since it is repeated in
 * every tool of the list a host loads, and the server instructions say what it is.
 */
export const RATE_LIMIT_SCHEMA = {
  type: 'object',
  properties: { per_minute: { type: 'integer' }, remaining: { type: 'integer' }, reset_after_seconds: { type: 'integer' } },
  required: ['per_minute', 'remaining', 'reset_after_seconds'],
} as const;

/**
 * A text on one line: every line or paragraph separator and control character written as a \u escape,
 * so that the first line stays one line, and stays exact, whatever a refused argument's name holds (a
 * message may quote it).
 */
export const oneLine = (s: string): string =>
  s.replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A param as the first line names it: bare when it is a plain name, else quoted, so spaces show. */
export const shownParam = (param: string): string => oneLine(/^[\w.-]+$/.test(param) ? param : JSON.stringify(param));

/**
 * The text of a failed tool call. Its first line is plain text, so a host that forwards the text (or
 * parses JSON text as structured content, as Gemini CLI does) shows the model the code, the message, the
 * argument at fault, and for a budget refusal the seconds to wait; the JSON error body follows on the
 * second line, with the budget as it stands.
 */
export function errorText(error: ApiError, requestId: string, limit?: RateLimit): string {
  const parts = [`Error ${error.code}: ${oneLine(error.message)}`];
  if (error.param !== undefined) parts.push(`Param: ${shownParam(error.param)}.`);
  if (error.retryAfter !== undefined) parts.push(`Retry in ${error.retryAfter} seconds.`);
  if (limit) parts.push(`Calls left this minute: ${limit.remaining} of ${limit.per_minute}.`);
  parts.push(`Request id: ${requestId}.`);
  const body = { ...errorBody(error, requestId), ...(limit ? { rate_limit: limit } : {}) };
  return `${parts.join(' ')}\n${JSON.stringify(body)}`;
}
