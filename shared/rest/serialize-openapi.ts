/**
 * The bytes of openapi/openapi.json. Kept apart from the builder so the function serving the document
 * bundles this line and not the read table. Parsing and serializing again gives the same bytes back,
 * because the file was written by this same function. Pretty-printed with one space per level:
 * the same lines as with two, and the deeply nested examples weigh a fifth less (docs/openapi.md, the
 * table of sizes). Not tabs: Spectral's parser warns on every tabbed line.
 */
export function serializeOpenApi(doc: unknown): string {
  return `${JSON.stringify(doc, null, 1)}\n`;
}

/** Where the generated document lives, relative to the repository root. */
export const OPENAPI_FILE = 'openapi/openapi.json';
