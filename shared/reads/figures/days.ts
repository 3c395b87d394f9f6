/**
 * Day arithmetic of the figure reads. The windows themselves are resolved by the store (migration 006,
 * fig_resolve_window and fig_segments), in the same call as the figures: DESIGN §3 says how.
 */

const DAY_MS = 86_400_000;

/** Every UTC day from `from` to `to`, both included, as YYYY-MM-DD (one Date per day, no parsing). */
export function* daysFrom(from: string, to: string): Generator<string> {
  const last = Date.parse(`${to}T00:00:00Z`);
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= last; t += DAY_MS) yield new Date(t).toISOString().slice(0, 10);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}
