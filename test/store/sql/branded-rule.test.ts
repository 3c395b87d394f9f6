import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { freshStore, type Store } from '../../../local/pglite.js';

/**
 * The rule that classifies a prompt the pipeline left unclassified (prompts.branded NULL):
 * fig_branded_rule(text, names) of migration 015, docs/data-contract.md "Branded prompts". Held case by
 * case to what a reader of that page expects, and to a restatement of the rule with JavaScript's own
 * Unicode tables (letters and digits \p{L}\p{N}, marks \p{M}), on the embedded store; and the form the
 * reads apply (fig_prompt_branded over the names folded once by fig_name_patterns) held to the same cases.
 */
let store: Store;
beforeAll(async () => {
  store = await freshStore();
}, 60_000);
afterAll(() => store.pg.close());

/** The rule in JavaScript: NFKD, lower case, marks removed, non-letters and non-digits as one space, on word boundaries. */
const fold = (t: string) =>
  t
    .normalize('NFKD')
    .toLowerCase()
    .replace(/\p{M}/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
const rule = (text: string, names: string[]) => names.some((n) => fold(n) !== '' && ` ${fold(text)} `.includes(` ${fold(n)} `));

async function sql(text: string, names: string[]): Promise<boolean> {
  const r = await store.db.query<{ b: boolean }>('SELECT fig_branded_rule($1, $2::text[]) AS b', [text, names]);
  return r.rows[0]?.b as boolean;
}

/** What a read says of a prompt the pipeline left unclassified, or classified as `pipeline`. */
async function asRead(text: string, names: string[], pipeline: boolean | null = null): Promise<boolean> {
  const r = await store.db.query<{ b: boolean }>('SELECT fig_prompt_branded($3, $1, fig_name_patterns($2::text[])) AS b', [
    text,
    names,
    pipeline,
  ]);
  return r.rows[0]?.b as boolean;
}

const CASES: Array<[string, string[], boolean, string]> = [
  ['Is Acme good for CRM?', ['Acme'], true, 'the name as written'],
  ['is ACME good for crm?', ['Acme'], true, 'any case'],
  ['Acme’s pricing vs Initech', ['Acme'], true, 'a possessive: the apostrophe is a boundary'],
  ['(Acme) or "Acme"?', ['Acme'], true, 'punctuation around it'],
  ['Best acmecorp alternatives', ['Acme'], false, 'inside a longer word: no'],
  ['Is Acme Cloud worth it?', ['Acme'], true, 'the brand inside an alias'],
  ['Is acme-cloud worth it?', ['Zenith', 'Acme Cloud'], true, 'an alias, hyphen for space'],
  ['Avis sur Société Générale ?', ['Societe Generale'], true, 'accents removed on the text'],
  ['Avis sur Societe Generale ?', ['Société Générale'], true, 'and on the name'],
  ['Avis sur SOCIÉTÉ GÉNÉRALE', ['société générale'], true, 'accents and case together'],
  ['Что лучше: Яндекс или Google?', ['яндекс'], true, 'Cyrillic, any case'],
  ['Τι είναι το Άλφα;', ['αλφα'], true, 'Greek, tonos removed'],
  ['Ｆｉｘｏ のレビュー', ['Fixo'], true, 'full-width letters fold to Latin (NFKD)'],
  ['Best tool for fixing things?', ['Fixo'], false, 'a prefix of another word'],
  ['Acme2 review', ['Acme'], false, 'a digit continues the word'],
  ['Acme 2 review', ['Acme 2'], true, 'a name with a digit'],
  ['Who makes the best CRM?', ['Acme', 'Acme Cloud'], false, 'no name at all'],
  ['Anything', ['', '---'], false, 'a name that folds to nothing never matches'],
  ['Anything', [], false, 'no names'],
  ['Save 50% with Acme', ['50%'], true, 'a LIKE wildcard in a name folds to a space'],
  ['Save 50 percent', ['5_'], false, 'an underscore is no wildcard either'],
  ['Acme\\Cloud review', ['acme\\cloud'], true, 'nor is a backslash an escape'],
];

describe('fig_branded_rule', () => {
  test.each(CASES)('%s with %j: %s (%s)', async (text, names, expected) => {
    expect(rule(text, names)).toBe(expected);
    expect(await sql(text, names)).toBe(expected);
    expect(await asRead(text, names)).toBe(expected);
  });

  test("the pipeline's classification wins over the rule, either way", async () => {
    expect(await asRead('Is Acme good?', ['Acme'], false)).toBe(false);
    expect(await asRead('Who makes the best CRM?', ['Acme'], true)).toBe(true);
  });

  test('fig_name_patterns: each name folded once, names that fold to nothing left out', async () => {
    const r = await store.db.query<{ p: string[] }>('SELECT fig_name_patterns($1::text[]) AS p', [
      ['Société Générale', '---', 'ACME', 'acme'],
    ]);
    expect(r.rows[0]?.p).toEqual(['% acme %', '% societe generale %']);
  });

  test('fig_fold: what the rule compares', async () => {
    const r = await store.db.query<{ f: string }>(`SELECT fig_fold($1) AS f`, ['  Société—Générale, S.A.  ']);
    expect(r.rows[0]?.f).toBe('societe generale s a');
    expect(fold('  Société—Générale, S.A.  ')).toBe('societe generale s a');
  });
});
