import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { fitted } from '#shared/reads/fit.js';

interface Reply {
  items: string[];
  truncated: boolean;
  /** Which cut made this reply (0 for the reply itself): the page returned must be the last one cut. */
  cutNo: number;
}

/** A reply weighed as its JSON, with a counter of the cuts made. */
function setup(items: string[]) {
  let cuts = 0;
  const reply: Reply = { items, truncated: false, cutNo: 0 };
  const cut = (r: Reply, n: number): Reply => ({ items: r.items.slice(0, n), truncated: true, cutNo: ++cuts });
  const bytesOf = (r: Reply): number => Buffer.byteLength(JSON.stringify(r));
  return { reply, cut, bytesOf, cuts: () => cuts };
}

describe('fitted: a page cut to what the function can return', () => {
  test('a reply within the room is returned as it is, uncut', () => {
    const { reply, cut, bytesOf, cuts } = setup(['a', 'b', 'c']);
    expect(fitted(reply, cut, bytesOf, bytesOf(reply))).toBe(reply);
    expect(cuts()).toBe(0);
  });

  test('items of like weight: the largest page that fits, at the first cut after the bare one', () => {
    const { reply, cut, bytesOf, cuts } = setup(Array.from({ length: 200 }, (_, i) => `item ${String(i).padStart(3, '0')}`));
    const room = Math.floor(bytesOf(reply) / 3);
    const page = fitted(reply, cut, bytesOf, room);
    expect(bytesOf(page)).toBeLessThanOrEqual(room);
    expect(bytesOf(cut(reply, page.items.length + 1))).toBeGreaterThan(room);
    expect(page).toMatchObject({ items: reply.items.slice(0, page.items.length), truncated: true });
    expect(cuts()).toBe(3);
  });

  test('a reply of one item, or not a page, is left to the response bound', () => {
    const one = setup(['x'.repeat(1000)]);
    expect(fitted(one.reply, one.cut, one.bytesOf, 10)).toBe(one.reply);
    const notPage = { figures: [1, 2, 3] };
    expect(
      fitted(
        notPage,
        () => ({ figures: [] }),
        () => 1e9,
        10,
      ),
    ).toBe(notPage);
  });

  test('any weights: a prefix of at least one item, within the room unless one item alone is not, and the last page cut', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 300 }), { minLength: 2, maxLength: 120 }), fc.nat(20_000), (items, roomSeed) => {
        const { reply, cut, bytesOf, cuts } = setup(items);
        const room = 40 + (roomSeed % bytesOf(reply));
        const page = fitted(reply, cut, bytesOf, room);
        expect(page.items).toEqual(items.slice(0, page.items.length));
        expect(page.items.length).toBeGreaterThanOrEqual(1);
        if (page.cutNo === 0) expect(bytesOf(page)).toBeLessThanOrEqual(room);
        else {
          expect(page.cutNo).toBe(cuts());
          expect(bytesOf(page) <= room || page.items.length === 1).toBe(true);
        }
      }),
    );
  });
});
