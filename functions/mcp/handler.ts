import { mcpHandler } from '../../shared/mcp/handler.js';
import { createServices } from '../../shared/services.js';

export const handler = mcpHandler(createServices());
