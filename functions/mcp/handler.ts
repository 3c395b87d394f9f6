import { mcpHandler } from '#shared/mcp/handler.js';
import { createServices } from '#shared/store/services.js';

export const handler = mcpHandler(createServices());
