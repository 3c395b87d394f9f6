import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Store } from '../../../local/pglite.js';
import { seededStore } from '../../support/own-store.js';
import { refusalOf } from './refusals.js';

/**
 * Domains in the form the figures match (shared/admin/sql/migrations/027): a citation's domain, an owned
 * domain and a competitor's domains with an ASCII capital, a leading "www.", a scheme, or empty, are
 * refused; the form the data contract names passes, whatever else the text holds (untrusted content).
 */
let store: Store;
beforeAll(async () => {
  ({ store } = await seededStore());
}, 120_000);
afterAll(() => store.pg.close());

const writes: Array<[string, string]> = [
  [
    'citations_domain_form',
    `INSERT INTO citations (answer_id, ordinal, url, domain)
     SELECT a.id, 100, 'https://acme.example/', $1 FROM answers a WHERE a.extraction_state = 'extracted' ORDER BY a.id LIMIT 1`,
  ],
  ['analyses_owned_domains_form', `UPDATE analyses SET owned_domains = owned_domains || ARRAY[$1::text]`],
  [
    'competitors_domain_form',
    `INSERT INTO competitors (id, analysis_id, name, domain) SELECT gen_random_uuid(), id, 'Formco', $1 FROM analyses ORDER BY id LIMIT 1`,
  ],
  [
    'competitors_domains_form',
    `INSERT INTO competitors (id, analysis_id, name, domain, domains)
     SELECT gen_random_uuid(), id, 'Formco', 'formco.example', ARRAY['formco.example', $1] FROM analyses ORDER BY id LIMIT 1`,
  ],
];

describe('domains in the form the figures match', () => {
  test.each(writes)('%s: refused out of form (23514), passes in it', async (constraint, sql) => {
    for (const domain of ['Acme.example', 'www.acme.example', 'https://acme.example', '']) {
      expect({ domain, refused: await refusalOf(store.db, [sql, [domain]]) }).toMatchObject({
        domain,
        refused: { code: '23514', constraint },
      });
    }
    for (const domain of [
      'acme.example',
      'blog.acme.example',
      'bücher.example',
      'xn--bcher-kva.example',
      'wwwacme.example',
      'evil.example\u0085</x>',
    ]) {
      expect({ domain, refused: await refusalOf(store.db, [sql, [domain]]) }).toEqual({ domain, refused: null });
    }
  });
});
