import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SAMPLE_CALLS, samplesFor } from './code-samples.js';

/**
 * llms.txt and llms-full.txt at the repository root (the llmstxt.org convention): what a language model,
 * or a person in a hurry, needs to call the API, made from openapi/openapi.json and the docs by
 * `npm run openapi`. llms.txt is the index: what the API is, its rules, the pages and the reads, each a
 * line. llms-full.txt holds the same head, then every operation in full (parameters, answer, errors, the
 * curl, TypeScript and Python samples of the reference page), then the pages a client author reads, whole.
 * test/openapi/llms.test.ts fails when the committed files are not what the current sources make.
 */

export const LLMS_FILE = 'llms.txt';
export const LLMS_FULL_FILE = 'llms-full.txt';

/** The pages a client author reads, in this order; they go whole into llms-full.txt. */
const CORE_PAGES = ['docs/contract.md', 'docs/clients.md', 'docs/errors.md', 'docs/figures.md', 'docs/openapi.md', 'docs/mcp.md'];
/** The other pages: listed in llms.txt under Optional, not copied. */
const OTHER_PAGES = [
  'docs/decisions.md',
  'docs/data-contract.md',
  'docs/guarantees.md',
  'docs/performance.md',
  'docs/administration.md',
  'docs/operating.md',
  'docs/contributing.md',
];

// biome-ignore lint/suspicious/noExplicitAny: the parsed document, read by the shape OpenAPI 3.1 gives it.
type Json = Record<string, any>;

/** The sources the two files are made of: the document's text and each page's, by path from the root. */
export interface LlmsSources {
  openapi: string;
  pages: Record<string, string>;
}

export async function readLlmsSources(root: string): Promise<LlmsSources> {
  const pages: Record<string, string> = {};
  for (const page of [...CORE_PAGES, ...OTHER_PAGES]) pages[page] = await readFile(join(root, page), 'utf8');
  return { openapi: await readFile(join(root, 'openapi', 'openapi.json'), 'utf8'), pages };
}

/** Links of a page of docs/ made relative to the root, where llms.txt and llms-full.txt live. */
function rebase(text: string): string {
  return text.replace(/\]\((?!https?:|#|mailto:)(\.\.\/)?([^)]*)\)/g, (_, up: string | undefined, target: string) =>
    up ? `](${target})` : `](docs/${target})`,
  );
}

/** A page's title (its first heading) and its first paragraph, on one line. */
function summaryOf(text: string): { title: string; lead: string } {
  const lines = text.split('\n');
  const title = (lines.find((l) => l.startsWith('# ')) ?? '').slice(2).trim();
  const start = lines.findIndex((l, i) => i > 0 && l.trim() !== '' && !l.startsWith('#'));
  const lead: string[] = [];
  for (const line of lines.slice(start)) {
    if (line.trim() === '') break;
    lead.push(line.trim());
  }
  return { title, lead: rebase(lead.join(' ')) };
}

interface Op {
  method: string;
  path: string;
  op: Json;
}

function operations(doc: Json): Op[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op: op as Json })),
  );
}

const resolve = (doc: Json, value: Json): Json => {
  if (typeof value?.$ref !== 'string') return value;
  // biome-ignore lint/suspicious/noExplicitAny: a JSON pointer walks any shape.
  let at: any = doc;
  for (const part of value.$ref.slice(2).split('/')) at = at?.[part.replaceAll('~1', '/')];
  return at as Json;
};

function typeText(schema: Json): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v: unknown) => JSON.stringify(v)).join(' | ');
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : String(schema.type ?? 'any');
  const bounds = [
    schema.format ? `format ${schema.format}` : '',
    schema.minimum !== undefined || schema.maximum !== undefined ? `${schema.minimum ?? ''}..${schema.maximum ?? ''}` : '',
    schema.pattern ? `pattern ${schema.pattern}` : '',
    schema.default !== undefined ? `default ${JSON.stringify(schema.default)}` : '',
  ].filter(Boolean);
  return bounds.length ? `${type} (${bounds.join(', ')})` : type;
}

function head(doc: Json): string[] {
  const info = doc.info as Json;
  return [
    `# ${info.title}`,
    '',
    `> ${info.summary}`,
    '',
    String(info.description),
    '',
    'Machine contract: [openapi/openapi.json](openapi/openapi.json), OpenAPI 3.1, also served without a key at `{base_url}/openapi.json`. Clients: `@geo-api/client` (TypeScript, clients/typescript) and `geo_api` (Python, clients/python); both read the key from `GEO_API_KEY` and the base address (ending with `/api/v1`) from `GEO_BASE_URL`. The same reads are MCP tools at `POST {base_url}/mcp`.',
  ];
}

function readLine({ method, path, op }: Op): string {
  return `- \`${op.operationId}\`: \`${method} ${path}\`. ${op.summary}.`;
}

/** The text of llms.txt. */
export function llmsIndex(sources: LlmsSources): string {
  const doc = JSON.parse(sources.openapi) as Json;
  const page = (p: string) => {
    const { title, lead } = summaryOf(sources.pages[p] as string);
    return `- [${title}](${p}): ${lead}`;
  };
  return `${[
    ...head(doc),
    '',
    '## Docs',
    '',
    ...CORE_PAGES.map(page),
    '',
    '## Reads',
    '',
    'Every read is a GET with `Authorization: Bearer geo_live_...`; its name is its operationId, its MCP tool and its client method.',
    '',
    ...operations(doc)
      .filter((o) => o.op.operationId in SAMPLE_CALLS)
      .map(readLine),
    '',
    '## Optional',
    '',
    ...operations(doc)
      .filter((o) => !(o.op.operationId in SAMPLE_CALLS))
      .map(readLine),
    ...OTHER_PAGES.map(page),
    `- [The whole of this, in one file](${LLMS_FULL_FILE}): every operation in full with its samples, and the pages above whole.`,
  ].join('\n')}\n`;
}

function operationText(doc: Json, { method, path, op }: Op, pathOf: (read: string) => string | undefined): string[] {
  const out = [`### \`${op.operationId}\`: ${method} ${path}`, '', `${op.summary}.`, '', String(op.description ?? '')];
  const params = ((op.parameters ?? []) as Json[]).map((p) => resolve(doc, p));
  if (params.length) {
    out.push('', 'Parameters:', '');
    for (const p of params)
      out.push(
        `- \`${p.name}\` (${p.in}${p.required ? ', required' : ''}): ${typeText(p.schema as Json)}. ${p.description ?? ''}`.trimEnd(),
      );
  }
  const ok = (op.responses as Json)['200'] as Json | undefined;
  const schema = ok?.content?.['application/json']?.schema as Json | undefined;
  if (schema?.$ref) out.push('', `Answers 200 with \`${String(schema.$ref).split('/').pop()}\` (components.schemas of openapi.json).`);
  const refusals = Object.entries(op.responses as Record<string, Json>)
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, r]) => {
      const name = typeof r.$ref === 'string' ? r.$ref.split('/').pop() : undefined;
      return `${status} ${name ? name.split('_or_').join(' or ') : ''}`.trim();
    });
  if (refusals.length) out.push('', `Refusals: ${refusals.join('; ')}.`);
  if (op.operationId in SAMPLE_CALLS) {
    for (const sample of samplesFor(op.operationId, path, pathOf)) {
      const fence = sample.lang === 'curl' ? 'bash' : sample.lang.toLowerCase();
      out.push('', `${sample.lang}:`, '', `\`\`\`${fence}`, sample.source, '```');
    }
  }
  return [...out, ''];
}

/** The text of llms-full.txt. */
export function llmsFull(sources: LlmsSources): string {
  const doc = JSON.parse(sources.openapi) as Json;
  const ops = operations(doc);
  const pathOf = (read: string) => ops.find((o) => o.op.operationId === read)?.path;
  const pages = CORE_PAGES.flatMap((p) => [`<!-- ${p} -->`, '', rebase(sources.pages[p] as string).trimEnd(), '']);
  return `${[
    ...head(doc),
    '',
    '## Operations',
    '',
    'Paths are relative to the base address `{base_url}` (ending with `/api/v1`). The samples read GEO_API_KEY and GEO_BASE_URL from the environment.',
    '',
    ...ops.flatMap((o) => operationText(doc, o, pathOf)),
    '## Pages',
    '',
    ...pages,
  ]
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')}`;
}

/** Writes both files at the root; returns what was written, for the caller to report. */
export async function writeLlmsFiles(root: string): Promise<Array<[string, number]>> {
  const sources = await readLlmsSources(root);
  const written: Array<[string, number]> = [];
  for (const [file, text] of [
    [LLMS_FILE, llmsIndex(sources)],
    [LLMS_FULL_FILE, llmsFull(sources)],
  ] as const) {
    await writeFile(join(root, file), text);
    written.push([file, Buffer.byteLength(text)]);
  }
  return written;
}

// Run alone (`npx tsx scripts/openapi/llms.ts`) after editing a page: the same files `npm run openapi`
// writes, without making the document again.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  for (const [file, bytes] of await writeLlmsFiles(root)) console.log(`wrote ${file} (${bytes} bytes)`);
}
