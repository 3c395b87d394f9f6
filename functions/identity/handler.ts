import { restHandler } from '../../shared/http/rest.js';
import { createServices } from '../../shared/services.js';

export const handler = restHandler('identity', createServices());
