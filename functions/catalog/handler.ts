import { catalogReads } from '#shared/reads/catalog/index.js';
import { restHandler } from '#shared/rest/handler.js';
import { createServices } from '#shared/store/services.js';

export const handler = restHandler(catalogReads, createServices());
