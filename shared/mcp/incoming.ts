import type { Event } from '../middleware/response.js';

/** Larger JSON-RPC bodies are refused before parsing; a tools/call with its arguments is a few hundred bytes. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;

/**
 * The bound on the body of a message that spends no budget (initialize, ping, the listings,
 * notifications, prompts/get, resources/read): a handshake is about 300 bytes, a listing less; a larger
 * one is work for the server that no client needs.
 */
export const MAX_FREE_BODY_BYTES = 16 * 1024;

/** The messages that read data, hence spend one call of the budget: every other message is free, and bounded. */
const SPENDING = new Set(['tools/call', 'completion/complete']);

/** Whether the request's message spends budget (a tools/call or a completion), rather than counting as free. */
export const spendsBudget = (message: unknown): boolean =>
  isPlainObject(message) && typeof message.method === 'string' && SPENDING.has(message.method);

export const isPlainObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The body of the request as text, whatever API Gateway's encoding of it. */
const bodyOf = (event: Event): string =>
  event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? '');

/** The request's body as text and its one JSON-RPC message, read once per event. */
export interface Incoming {
  body: string;
  /** Undefined for a body over the bound or not JSON, which the handler refuses. */
  message: unknown;
}

const incoming = new WeakMap<Event, Incoming>();

/** The body and message of the request, decoded and parsed once (the authenticate step and the handler both read them). */
export function incomingOf(event: Event): Incoming {
  const known = incoming.get(event);
  if (known) return known;
  const body = bodyOf(event);
  let message: unknown;
  if (Buffer.byteLength(body) <= MAX_MCP_BODY_BYTES) {
    try {
      message = JSON.parse(body);
    } catch {
      message = undefined;
    }
  }
  const read = { body, message };
  incoming.set(event, read);
  return read;
}

/**
 * The analysis a tools/call names (its `analysis` argument, as the request carries it), so the caller
 * statement resolves it with the key; undefined for any other message, or a body the handler will refuse.
 */
export function toolAnalysis(event: Event): string | undefined {
  const { message } = incomingOf(event);
  if (!isPlainObject(message) || message.method !== 'tools/call' || !isPlainObject(message.params)) return undefined;
  const args = message.params.arguments;
  return isPlainObject(args) && typeof args.analysis === 'string' ? args.analysis : undefined;
}
