import { restHandler } from '../../shared/http/rest.js';
import { identityReads } from '../../shared/reads/identity/index.js';
import { createServices } from '../../shared/services.js';

export const handler = restHandler(identityReads, createServices());
