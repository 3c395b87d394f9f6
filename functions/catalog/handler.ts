import { restHandler } from '#shared/http/rest.js';
import { catalogReads } from '#shared/reads/catalog/index.js';
import { createServices } from '#shared/store/services.js';

export const handler = restHandler(catalogReads, createServices());
