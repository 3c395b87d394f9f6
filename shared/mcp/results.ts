import { type ApiError, errorBody } from '../errors.js';
import { echoed } from '../formats.js';
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
 * Characters a reader may honour as a line break or that change how text around them reads: controls
 * (Cc, NEL included), format characters (Cf: the bidirectional embeddings, overrides and isolates, zero
 * widths, tags), line and paragraph separators (Zl, Zp).
 */
const UNSEEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** A character as JSON writes it escaped: one \u escape per UTF-16 unit (two for one above U+FFFF). */
const escaped = (c: string): string =>
  Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

/**
 * A text on one line that reads as written: every character of UNSEEN as a \u escape, so that the first
 * line stays one line, and stays exact, whatever a refused argument's name holds (a message may quote it).
 */
export const oneLine = (s: string): string => s.replace(UNSEEN, escaped);

/**
 * JSON text with every character of UNSEEN inside its strings written as a \u escape (JSON.stringify
 * leaves U+007F-U+009F, U+2028, U+2029 and the format characters raw): still the same JSON to a parser,
 * one line with no hidden control to a reader.
 */
export const plainJson = (value: unknown): string => plainJsonText(JSON.stringify(value));

/**
 * The same for JSON already written: outside its strings JSON holds no character of UNSEEN (its
 * whitespace is space, tab, CR and LF, each escaped inside strings), so escaping them in the text
 * escapes them in the strings and leaves the value as it was.
 */
export const plainJsonText = (json: string): string => json.replace(UNSEEN, escaped);

/** A caller's string as a message quotes it: in JSON quotes, cut as every echo is (echoed), on one line. */
export const quoted = (s: string): string => oneLine(JSON.stringify(echoed(s)));

/** A param as the first line names it: bare when it is a plain name, else quoted, so spaces show. */
export const shownParam = (param: string): string => oneLine(/^[\w.-]+$/.test(param) ? param : JSON.stringify(param));

/** A sentence as the first line strings it: ending with a period, so the next part reads as a new one. */
export const sentence = (s: string): string => (/[.!?]$/.test(s) ? s : `${s}.`);

/**
 * The text of a failed tool call. Its first line is plain text, so a host that forwards the text (or
 * parses JSON text as structured content, as Gemini CLI does) shows the model the code, the message, the
 * argument at fault, and for a budget refusal the seconds to wait; the JSON error body follows on the
 * second line, with the budget as it stands.
 */
export function errorText(error: ApiError, requestId: string, limit?: RateLimit): string {
  const body = errorBody(error, requestId, 'mcp');
  const parts = [`Error ${error.code}: ${sentence(oneLine(body.error.message))}`];
  if (error.param !== undefined) parts.push(`Param: ${shownParam(error.param)}.`);
  if (error.retryAfter !== undefined) parts.push(`Retry in ${error.retryAfter} seconds.`);
  if (limit) parts.push(`Calls left this minute: ${limit.remaining} of ${limit.per_minute}.`);
  parts.push(`Request id: ${requestId}.`);
  return `${parts.join(' ')}\n${plainJson({ ...body, ...(limit ? { rate_limit: limit } : {}) })}`;
}
