import { figureReads } from '#shared/reads/figures/index.js';
import { restHandler } from '#shared/rest/handler.js';
import { createServices } from '#shared/store/services.js';

export const handler = restHandler(figureReads, createServices());
