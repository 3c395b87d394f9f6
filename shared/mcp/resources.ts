import { INVALID_PARAMS, type ReadResourceResult, type Resource } from '@modelcontextprotocol/server';
import { METHODOLOGY } from './methodology.js';
import { RpcError } from './refusals.js';
import { quoted } from './results.js';

/** The one resource: what each figure means and how intervals and significance are computed. */
export const METHODOLOGY_URI = 'geo://methodology';

const METHODOLOGY_RESOURCE: Resource = {
  uri: METHODOLOGY_URI,
  name: 'methodology',
  title: 'What each figure means, and how it is computed',
  description:
    'The figures the tools return (visibility, share of voice, position, sentiment, source share...), their windows and comparisons, and how their 95% intervals and significance are computed. Static: the same for every analysis.',
  mimeType: 'text/markdown',
  size: Buffer.byteLength(METHODOLOGY),
};

/** What resources/list answers. */
export const resourceList = (): Resource[] => [METHODOLOGY_RESOURCE];

/** resources/read: the methodology, or -32602 (the 2026-07-28 code for an unknown resource) for any other URI. */
export function readResource(uri: string): ReadResourceResult {
  if (uri !== METHODOLOGY_URI)
    throw new RpcError(INVALID_PARAMS, `Unknown resource: ${quoted(uri)}. Call resources/list for the available resources.`);
  return { contents: [{ uri: METHODOLOGY_URI, mimeType: 'text/markdown', text: METHODOLOGY }] };
}
