import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Store } from '../../../local/pglite.js';
import { seededStore } from '../../support/own-store.js';
import { refusalOf } from './refusals.js';

/**
 * Brand names in one Unicode form (shared/admin/sql/migrations/026): a mention's brand_name, a
 * competitor's name and a brand's name written decomposed (NFD) are refused, so one brand cannot be
 * listed twice under two spellings that look the same; the precomposed (NFC) form of the same name passes.
 */
let store: Store;
beforeAll(async () => {
  ({ store } = await seededStore());
}, 120_000);
afterAll(() => store.pg.close());

const NFD = 'Socie\u0301te\u0301 Ge\u0301ne\u0301rale';
const NFC = NFD.normalize('NFC');

describe('brand names in NFC', () => {
  const writes: Array<[string, string]> = [
    [
      'mentions_brand_name_nfc',
      `INSERT INTO mentions (answer_id, position, brand_name)
       SELECT a.id, 100, $1 FROM answers a WHERE a.extraction_state = 'extracted' ORDER BY a.id LIMIT 1`,
    ],
    [
      'competitors_name_nfc',
      `INSERT INTO competitors (id, analysis_id, name, domain) SELECT gen_random_uuid(), id, $1, 'sg.example' FROM analyses ORDER BY id LIMIT 1`,
    ],
    ['brands_name_nfc', `INSERT INTO brands (id, workspace_id, name) SELECT gen_random_uuid(), id, $1 FROM workspaces ORDER BY id LIMIT 1`],
  ];

  test.each(writes)('%s: the decomposed name refused (23514), the precomposed one passes', async (constraint, sql) => {
    expect(NFD).not.toBe(NFC);
    expect(await refusalOf(store.db, [sql, [NFD]])).toMatchObject({ code: '23514', constraint });
    expect(await refusalOf(store.db, [sql, [NFC]])).toBeNull();
  });
});
