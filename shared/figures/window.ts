/**
 * Day arithmetic of the figure reads. The windows themselves are resolved by the store (migration 006,
 * fig_resolve_window and fig_segments), in the same call as the figures: DESIGN §3 says how.
 */

const DAY_MS = 86_400_000;

export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}
