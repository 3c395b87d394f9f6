/**
 * The human reference page (Redoc, built from openapi/openapi.json by `npm run docs` into one HTML file):
 * what it may load, and the headers it is served with, by the deployed openapi function at
 * REFERENCE_PATH and by `npm start` at /docs.
 */

/** Where a deployed stage serves the page: under the API's base path, which is all the gateway routes. */
export const REFERENCE_PATH = '/api/v1/docs';

/** The page's file beside the openapi function's bundle, which its bundling puts there (lib/stateless-stack.ts). */
export const REFERENCE_FILE = 'reference.html';

/**
 * What the page may load: its own inline script and styles, data: images, and the blob: workers Redoc
 * starts for search. Nothing from another origin, so a renderer upgrade that adds a remote asset fails
 * visibly instead of calling out. Sent as a header, and repeated in the page itself for a copy opened
 * from disk.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  'img-src data:',
  'font-src data:',
  'worker-src blob:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** The header form adds what a <meta> policy cannot say (browsers ignore frame-ancestors there). */
export const DOCS_CSP_HEADER = `${DOCS_CSP}; frame-ancestors 'none'`;

/** The headers of the page, wherever it is served. */
export const REFERENCE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': DOCS_CSP_HEADER,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
