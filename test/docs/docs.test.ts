import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { reads } from '#shared/reads/registry.js';

/**
 * The documentation as a reader meets it: a short README that is the way into every page of docs/, links
 * that lead somewhere (a file of the repository, and a heading of it when they name one), and a repository
 * that stands on its own (nothing points at notes kept outside it, nor at an issue tracker the reader does
 * not see: what changed and why is in git history).
 */

const ROOT = resolve(import.meta.dirname, '..', '..');
const README = 'README.md';
/** The README stays a front door: at most 12 KiB, the rest lives in docs/. */
const README_MAX_BYTES = 12_288;

const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
/** The files of the repository: tracked, and new ones git does not ignore, as they stand in the work tree. */
const repositoryFiles = (): string[] =>
  execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(ROOT, f)) && statSync(join(ROOT, f)).isFile());
/** The pages of a folder of docs/, README.md first where there is one (a folder's index). */
const pagesOf = (dir: string): string[] =>
  readdirSync(join(ROOT, dir))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `${dir}/${name}`);
/** The pages of docs/ itself, each linked from the README. */
const docsPages = (): string[] => pagesOf('docs');
/** Every page under docs/, its folders' pages included (docs/hosts). */
const allDocsPages = (): string[] => [
  ...docsPages(),
  ...readdirSync(join(ROOT, 'docs'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => pagesOf(`docs/${entry.name}`)),
];

/** A fenced block, indented or not (a block inside a list item is indented). */
const FENCED = /^[ \t]*(```|~~~)[^\n]*\n[\s\S]*?^[ \t]*\1[^\n]*$/gm;

/** The text a reader sees as prose: fenced blocks and inline code spans removed (links in them are not links). */
function prose(markdown: string): string {
  return markdown.replace(FENCED, '').replace(/`+[^`\n]*`+/g, '');
}

/** Heading anchors as GitHub makes them: lowercase, punctuation dropped but hyphens, spaces to hyphens, -1, -2 on repeats. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const text = markdown.replace(FENCED, '');
  for (const [, heading = ''] of text.matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const plain = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .trim();
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

interface Link {
  from: string;
  target: string;
}

/** Every relative link of a page ([text](target), in prose), external addresses left out. */
function relativeLinks(file: string): Link[] {
  const links: Link[] = [];
  for (const [, target = ''] of prose(read(file)).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    links.push({ from: file, target });
  }
  return links;
}

/** Where a link leads: '' when it does, else why not. */
function brokenReason({ from, target }: Link): string {
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = pathPart === '' ? join(ROOT, from) : resolve(ROOT, dirname(from), decodeURI(pathPart));
  if (!file.startsWith(ROOT + sep) && file !== ROOT) return 'leaves the repository';
  if (!existsSync(file)) return 'no such file';
  if (anchor === undefined || anchor === '') return '';
  if (statSync(file).isDirectory() || !file.endsWith('.md')) return 'an anchor into something that is not a markdown page';
  return anchors(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor)) ? '' : `no heading #${anchor} in ${relative(ROOT, file)}`;
}

describe('the README is a front door', () => {
  test(`README.md is at most ${README_MAX_BYTES} bytes`, () => {
    expect(Buffer.byteLength(read(README))).toBeLessThanOrEqual(README_MAX_BYTES);
  });

  test('README.md links to every page of docs/', () => {
    const linked = new Set(relativeLinks(README).map((l) => l.target.split('#')[0]));
    expect(docsPages().filter((page) => !linked.has(page))).toEqual([]);
  });

  test('every page of docs/ opens with its title, then a sentence saying what it is for', () => {
    const bad = allDocsPages().filter((page) => !/^# .+\n\n[A-Z][^\n]+/.test(read(page)));
    expect(bad).toEqual([]);
  });
});

describe('links lead somewhere', () => {
  test('the anchor rules follow GitHub', () => {
    expect([
      ...anchors(
        '# Errors and faults\n## `npm run bench -- overhead`\n## Rehearsed here, and what cannot run here\n## Faults\n## Faults\n',
      ),
    ]).toEqual(['errors-and-faults', 'npm-run-bench----overhead', 'rehearsed-here-and-what-cannot-run-here', 'faults', 'faults-1']);
  });

  test('every relative link in README.md and docs/**/*.md reaches a file of the repository, and a heading of it when it names one', () => {
    const broken = [README, ...allDocsPages()]
      .flatMap(relativeLinks)
      .map((link) => ({ ...link, why: brokenReason(link) }))
      .filter((link) => link.why !== '')
      .map(({ from, target, why }) => `${from}: (${target}) ${why}`);
    expect(broken).toEqual([]);
  });
});

describe('the repository stands on its own', () => {
  // Spelled in pieces so that this file does not name them itself.
  const OUTSIDE_NOTES = ['SPEC', 'DESIGN', 'TOOLING'].map((name) => `${name}.md`);
  const UP_TO_SHARED = /(?:\.\.\/)+shared\//g;

  test('no file of the repository names the notes kept outside it, or reaches outside it through a parent path', () => {
    const found: string[] = [];
    for (const file of repositoryFiles()) {
      const text = read(file);
      for (const name of OUTSIDE_NOTES) if (text.includes(name)) found.push(`${file}: ${name}`);
      for (const [up] of text.matchAll(UP_TO_SHARED)) {
        // A relative import from test/unit climbing two levels to the shared room stays inside; one level up from the root does not.
        if (!resolve(ROOT, dirname(file), up).startsWith(ROOT + sep)) found.push(`${file}: ${up}`);
      }
    }
    expect([...new Set(found)]).toEqual([]);
  });

  /**
   * A numbered issue of a tracker the reader never sees. Code, test titles and docs say what is tested or
   * measured and why, in the present tense; what changed and why is in git history.
   */
  const ISSUE_NUMBER = /\bissues? #?\d+/i;
  /** The lines (1-based) of a text that name an issue by number. */
  const issueLines = (text: string): number[] => text.split('\n').flatMap((line, i) => (ISSUE_NUMBER.test(line) ? [i + 1] : []));
  /** Git's own test for a binary file: a NUL byte in its first 8,000 bytes. */
  const isBinary = (bytes: Buffer): boolean => bytes.subarray(0, 8000).includes(0);

  test('the issue-number pattern finds a planted mention, and passes other numbers and the word alone', () => {
    // Spelled in pieces so that this file does not name an issue itself.
    const word = 'issue';
    const planted = [
      'a comment that says why',
      `since ${word} 20 the list is free`,
      `${word}s 19/21/23`,
      `(${word} #7)`,
      `${word.toUpperCase()} 14 point 8: shared parts`,
      'migration 012; reads 4-10; the issue of a key',
    ].join('\n');
    expect(issueLines(planted)).toEqual([2, 3, 4, 5]);
  });

  test('no text file of the repository names an issue by number', () => {
    const found: string[] = [];
    for (const file of repositoryFiles()) {
      if (file === 'package-lock.json') continue;
      const bytes = readFileSync(join(ROOT, file));
      if (isBinary(bytes)) continue;
      for (const line of issueLines(bytes.toString('utf8'))) found.push(`${file}:${line}`);
    }
    expect(found).toEqual([]);
  });
});

describe('the contract page agrees with the read table', () => {
  test('the fifteen reads, in order, with the tool name, method and path, and family the code serves', () => {
    const text = readFileSync(join(ROOT, 'docs/contract.md'), 'utf8');
    const rows = [...text.matchAll(/^\| (\d+) \| `(\w+)` \| `GET ([^`]+)` \| (\w+) \|/gm)].map((m) => [Number(m[1]), m[2], m[3], m[4]]);
    expect(rows).toEqual(reads.map((read, i) => [i + 1, read.name, read.path, read.family]));
  });
});
