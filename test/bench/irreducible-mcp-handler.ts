import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, JSONRPCRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { handler as irreducible } from './irreducible-io-handler.js';

/**
 * The MCP function's yardstick (issue 23): the irreducible-dependency handler with its I/O
 * (irreducible-io-handler.ts) plus the import of the MCP SDK modules the function uses (its low-level
 * Server, the web-standard streamable HTTP transport and the request schemas), which it only checks
 * are there: serving MCP with them is the function's own work.
 */
const sdk = [Server, WebStandardStreamableHTTPServerTransport, CallToolRequestSchema, JSONRPCRequestSchema, ListToolsRequestSchema];

export const handler = async (): Promise<{ statusCode: number; body: string }> => {
  const res = await irreducible();
  return sdk.every((part) => part !== undefined) ? res : { statusCode: 500, body: '' };
};
