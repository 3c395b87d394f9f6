/** A read's reply with only its first `items` items, as a page of them would be (ReadDef.cut). */
export type Cut<T> = (reply: T, items: number) => T;

/** How many items a page read's reply holds (0 for a reply that is not a page). */
function itemsOf(reply: unknown): number {
  const items = typeof reply === 'object' && reply !== null ? (reply as { items?: unknown }).items : undefined;
  return Array.isArray(items) ? items.length : 0;
}

/**
 * The reply as it is when it weighs at most `room` (what `bytesOf` gives for it), else a page of its first
 * items that does: a legal request gets a page it can be sent, never a reply the function cannot return.
 * The page holds at least one item; one item alone past `room` is left to the response bound
 * (shared/middleware/response-bound.ts). Each try sizes the page in proportion to the room left for items
 * (a page of items of like weight fits at the first cut) and holds fewer items than the try before. `cut`
 * may write the page's own figures into the items it keeps (a correction over the page's tests), so the
 * page returned is always the last one cut.
 */
export function fitted<T>(reply: T, cut: Cut<T>, bytesOf: (page: T) => number, room: number): T {
  let weight = bytesOf(reply);
  if (weight <= room || itemsOf(reply) <= 1) return reply;
  const bare = bytesOf(cut(reply, 0));
  let n = itemsOf(reply);
  while (n > 1) {
    const share = Math.max(room - bare, 0) / Math.max(weight - bare, 1);
    n = Math.max(1, Math.min(n - 1, Math.floor(n * share)));
    const page = cut(reply, n);
    weight = bytesOf(page);
    if (weight <= room || n === 1) return page;
  }
  return reply;
}
