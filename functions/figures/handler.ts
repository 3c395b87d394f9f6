import { restHandler } from '#shared/http/rest.js';
import { figureReads } from '#shared/reads/figures/index.js';
import { createServices } from '#shared/store/services.js';

export const handler = restHandler(figureReads, createServices());
