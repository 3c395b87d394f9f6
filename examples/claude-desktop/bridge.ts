import type { Readable, Writable } from 'node:stream';
import {
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

/**
 * The Desktop Extension's server: Claude Desktop speaks MCP over stdio to it, and it relays every message,
 * unchanged, to the API's Streamable HTTP endpoint with the key in `Authorization: Bearer`. Both ends are
 * the MCP SDK's own transports, so the framing and the protocol era (an `initialize` handshake or a
 * 2026 `server/discover`) are whatever the host and the API agree on; the bridge only adds the key and
 * turns an HTTP refusal into a JSON-RPC error answer to the request that met it. Without that, a
 * refused key reaches the host as "Connection closed" and the user never learns why.
 */

/** How the extension's settings reach the bridge: the manifest's `mcp_config.env`. */
export const ENV = { apiKey: 'GEO_API_KEY', endpoint: 'GEO_MCP_URL' } as const;

/** The name Claude Desktop shows (the manifest's display_name), to say where the settings are. */
export const DISPLAY_NAME = 'GEO measurement API';
export const SETTINGS_HINT = `Set it in the extension's settings (Claude Desktop: Settings → Extensions → ${DISPLAY_NAME}).`;

/** JSON-RPC codes of the answers the bridge writes itself (the implementation-defined -32000..-32099 range). */
export const BRIDGE_ERRORS = {
  /** No key, or the API refused it (401) or refused access with it (403). */
  key: -32030,
  /** The endpoint is not set right, cannot be reached, or answered something other than MCP. */
  endpoint: -32031,
} as const;

export interface Settings {
  apiKey: string | undefined;
  endpoint: string | undefined;
}

export function settingsFromEnv(env: NodeJS.ProcessEnv): Settings {
  return { apiKey: setting(env[ENV.apiKey]), endpoint: setting(env[ENV.endpoint]) };
}

/**
 * A setting's value, or undefined when there is none. A host substitutes `${user_config.x}` in the
 * manifest's env only when the user gave x a value, and leaves the placeholder as it is otherwise.
 */
function setting(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  if (!trimmed || /^\$\{user_config\.[^}]*\}$/.test(trimmed)) return undefined;
  return trimmed;
}

interface Failure {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** The endpoint as it may be shown: no user or password, no query. */
function shown(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/**
 * Any text the bridge prints (its log, the errors it answers), with the user and password taken out of
 * every URL in it and the key, when known, replaced: a URL that carries credentials reaches fetch, whose
 * refusal quotes it whole, and a page an endpoint answers may quote the request.
 */
export function withoutCredentials(text: string, apiKey?: string): string {
  const stripped = text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi, '$1');
  return apiKey ? stripped.split(apiKey).join('<API key>') : stripped;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** What is wrong with the settings before anything is sent, or the endpoint and key to use. */
export function checkSettings(settings: Settings): { failure: Failure } | { url: URL; apiKey: string } {
  if (!settings.endpoint) {
    return { failure: { code: BRIDGE_ERRORS.endpoint, message: `No MCP endpoint is set for ${DISPLAY_NAME}. ${SETTINGS_HINT}` } };
  }
  let url: URL;
  try {
    url = new URL(settings.endpoint);
  } catch {
    return {
      failure: {
        code: BRIDGE_ERRORS.endpoint,
        message: `The MCP endpoint setting is not a URL (it should look like https://api.example.com/api/v1/mcp). ${SETTINGS_HINT}`,
      },
    };
  }
  // A user or password in the address would be sent (and quoted back) with every request, beside the key.
  if (url.username || url.password) {
    return {
      failure: {
        code: BRIDGE_ERRORS.endpoint,
        message: `The MCP endpoint setting holds a user name or password before the host (user:password@ or key@), which the bridge does not send or show. Set the address alone (${shown(url)}) and the API key in the API key setting. ${SETTINGS_HINT}`,
        data: { endpoint: shown(url) },
      },
    };
  }
  // The key travels in a header: over plain http only to this machine, never across a network.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    return {
      failure: {
        code: BRIDGE_ERRORS.endpoint,
        message: `The MCP endpoint ${shown(url)} must start with https:// (http:// only for localhost, 127.0.0.1 or [::1]), so that the API key is never sent in clear. ${SETTINGS_HINT}`,
        data: { endpoint: shown(url) },
      },
    };
  }
  // A key pasted with its header prefix still works; nothing else is taken apart.
  const apiKey = settings.apiKey?.replace(/^Bearer\s+/i, '');
  if (!apiKey) {
    return {
      failure: {
        code: BRIDGE_ERRORS.key,
        message: `No API key is set for ${DISPLAY_NAME}, so the API would refuse every call (401 unauthorized). ${SETTINGS_HINT}`,
        data: { endpoint: shown(url) },
      },
    };
  }
  // Checked here because fetch would refuse such a header with an error that quotes its value: the key.
  if (!/^[\x21-\x7e]+$/.test(apiKey)) {
    return {
      failure: {
        code: BRIDGE_ERRORS.key,
        message: `The API key setting holds characters no key has (spaces, line breaks or non-ASCII). Paste the key alone (it begins with geo_live_). ${SETTINGS_HINT}`,
        data: { endpoint: shown(url) },
      },
    };
  }
  return { url, apiKey };
}

interface ErrorEnvelope {
  code: string;
  message: string;
  request_id?: string;
}

/** Our REST error body (`{"error":{"code","message",...}}`), when that is what the API answered. */
function envelope(text: unknown): ErrorEnvelope | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const error = (JSON.parse(text) as { error?: Partial<ErrorEnvelope> }).error;
    if (typeof error?.code === 'string' && typeof error.message === 'string') {
      return {
        code: error.code,
        message: error.message,
        ...(typeof error.request_id === 'string' ? { request_id: error.request_id } : {}),
      };
    }
  } catch {}
  return undefined;
}

/** A JSON-RPC error the API answered with an HTTP error status (400 parse error, 413...): passed on as it is. */
function rpcError(text: unknown, id: RequestId): JSONRPCMessage | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const message = JSON.parse(text) as JSONRPCMessage;
    if (isJSONRPCErrorResponse(message) && (message.id === id || message.id === null || message.id === undefined))
      return { ...message, id };
  } catch {}
  return undefined;
}

const CHECK_PATH = "Check the MCP endpoint in the extension's settings: it ends in /api/v1/mcp.";

const sentence = (text: string): string => (/[.!?]$/.test(text) ? text : `${text}.`);

/** Why a message could not be relayed, in words the user can act on. */
export function explain(error: unknown, url: URL): Failure {
  const endpoint = shown(url);
  if (error instanceof SdkHttpError) {
    const status = error.status;
    const body = envelope(error.data.text);
    const requestId = body?.request_id ? ` Request id: ${body.request_id}.` : '';
    const data = { endpoint, status, ...(body ? { error: body } : {}) };
    if (body && status === 401) {
      return {
        code: BRIDGE_ERRORS.key,
        message: `The API refused the API key (401 ${body.code}): ${sentence(body.message)} Set a valid key in the extension's settings (Claude Desktop: Settings → Extensions → ${DISPLAY_NAME}).${requestId}`,
        data,
      };
    }
    if (body && status === 403) {
      return {
        code: BRIDGE_ERRORS.key,
        message: `The API refused access with this API key (403 ${body.code}): ${sentence(body.message)} Set a key that has access in the extension's settings (Claude Desktop: Settings → Extensions → ${DISPLAY_NAME}).${requestId}`,
        data,
      };
    }
    // Only POST /mcp takes MCP: another path of the API answers 404 or 405.
    const path = status === 404 || status === 405 ? ` ${CHECK_PATH}` : '';
    if (body) {
      return {
        code: BRIDGE_ERRORS.endpoint,
        message: `The API at ${endpoint} answered ${status} ${body.code}: ${sentence(body.message)}${path}${requestId}`,
        data,
      };
    }
    const text = typeof error.data.text === 'string' ? error.data.text.replace(/\s+/g, ' ').trim().slice(0, 200) : '';
    return {
      code: BRIDGE_ERRORS.endpoint,
      message: `${endpoint} answered HTTP ${status}${text ? ` (${text})` : ''}, not the API's MCP endpoint. ${CHECK_PATH}`,
      data,
    };
  }
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const why = cause ? `${code ? `${code}: ` : ''}${cause.message}` : error instanceof Error ? error.message : String(error);
  return {
    code: BRIDGE_ERRORS.endpoint,
    message: `Could not reach the API at ${endpoint} (${why}). Check the MCP endpoint in the extension's settings and this machine's network.`,
    data: { endpoint },
  };
}

export interface BridgeIo {
  stdin: Readable;
  stdout: Writable;
  /** One line per event; never the key. */
  log: (line: string) => void;
}

/** Starts relaying; resolves once both transports are started. Stdin's end closes the bridge. */
export async function startBridge(settings: Settings, { stdin, stdout, log: print }: BridgeIo): Promise<void> {
  const stdio = new StdioServerTransport(stdin, stdout);
  const checked = checkSettings(settings);
  const secret = 'apiKey' in checked ? checked.apiKey : undefined;
  const io = { log: (line: string) => print(withoutCredentials(line, secret)) };
  const answer = (id: RequestId, failure: Failure) =>
    stdio
      .send({ jsonrpc: '2.0', id, error: { ...failure, message: withoutCredentials(failure.message, secret) } })
      .catch((e: unknown) => io.log(`could not write to the host: ${String(e)}`));

  if ('failure' in checked) {
    // Nothing can be relayed: every request is answered with the reason, so the host shows it.
    io.log(checked.failure.message);
    stdio.onmessage = (message) => {
      if (isJSONRPCRequest(message)) void answer(message.id, checked.failure);
    };
    stdio.onerror = (e) => io.log(`stdio: ${e.message}`);
    await stdio.start();
    return;
  }

  const { url, apiKey } = checked;
  const http = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } });
  const initializing = new Set<RequestId>();

  http.onmessage = (message) => {
    // The negotiated version goes on every later request's MCP-Protocol-Version header, as the SDK's Client does.
    if (isJSONRPCResultResponse(message) && initializing.delete(message.id)) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') http.setProtocolVersion(version);
    }
    stdio.send(message).catch((e: unknown) => io.log(`could not write to the host: ${String(e)}`));
  };
  // A relayed message's failure also rejects its send(), answered below; the only other source is the
  // GET stream the SDK tries after initialization, which this stateless API declines (405), harmlessly.
  http.onerror = () => {};

  stdio.onmessage = (message) => {
    if (isJSONRPCRequest(message) && isInitializeRequest(message)) initializing.add(message.id);
    http.send(message).catch((error: unknown) => {
      if (isJSONRPCRequest(message)) initializing.delete(message.id);
      const passed = isJSONRPCRequest(message) && error instanceof SdkHttpError ? rpcError(error.data.text, message.id) : undefined;
      if (passed) {
        stdio.send(passed).catch(() => {});
        return;
      }
      const failure = explain(error, url);
      const what = isJSONRPCRequest(message) ? message.method : 'method' in message ? message.method : 'a response';
      io.log(`${what}: ${failure.message}`);
      if (isJSONRPCRequest(message)) void answer(message.id, failure);
    });
  };
  stdio.onerror = (e) => io.log(`stdio: ${e.message}`);
  stdio.onclose = () => {
    void http.close();
  };

  await http.start();
  await stdio.start();
  io.log(`relaying to ${shown(url)}`);
}
