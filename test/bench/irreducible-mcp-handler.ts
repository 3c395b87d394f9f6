import {
  createMcpHandler,
  isLegacyRequest,
  Server,
  specTypeSchemas,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { handler as irreducible } from './irreducible-io-handler.js';

/**
 * The MCP function's yardstick: the irreducible-dependency handler with its I/O
 * (irreducible-io-handler.ts) plus the import of the MCP SDK (v2, @modelcontextprotocol/server) parts the
 * function uses: the low-level Server, the 2025-era web-standard transport, the 2026-07-28 entry, the era
 * check and the request schemas. It only checks they are there: serving MCP with them is the function's
 * own work.
 */
const sdk = [Server, WebStandardStreamableHTTPServerTransport, createMcpHandler, isLegacyRequest, specTypeSchemas];

export const handler = async (): Promise<{ statusCode: number; body: string }> => {
  const res = await irreducible();
  return sdk.every((part) => part !== undefined) ? res : { statusCode: 500, body: '' };
};
