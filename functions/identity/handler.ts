import { identityReads } from '#shared/reads/identity/index.js';
import { restHandler } from '#shared/rest/handler.js';
import { createServices } from '#shared/store/services.js';

export const handler = restHandler(identityReads, createServices());
