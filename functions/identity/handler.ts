import { restHandler } from '#shared/http/rest.js';
import { identityReads } from '#shared/reads/identity/index.js';
import { createServices } from '#shared/store/services.js';

export const handler = restHandler(identityReads, createServices());
