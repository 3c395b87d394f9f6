/**
 * The address space of the API, without the read table: importing this pulls in no read, so a family
 * bundle can match paths without carrying the other families (shared/rest/routes.ts is the full list).
 */
export const BASE_PATH = '/api/v1';

/** Matches a concrete path against a route path; a {param} is one non-empty segment, URL-decoded. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i += 1) {
    const w = want[i] as string;
    const g = got[i] as string;
    if (w.startsWith('{')) {
      if (g === '') return null;
      try {
        params[w.slice(1, -1)] = decodeURIComponent(g);
      } catch {
        return null;
      }
    } else if (w !== g) {
      return null;
    }
  }
  return params;
}
