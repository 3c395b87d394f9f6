#!/usr/bin/env node
/**
 * `geo <read> [--param value]... [--all] [--format json|ndjson|csv] [--quiet]`: every read of the API from
 * a shell, on the client of this package. The key comes from GEO_API_KEY, the base address from
 * GEO_BASE_URL (no default: a forgotten variable must not silently call some other server). Exit codes
 * (EXIT below) let a script branch on the kind of failure; messages and progress go to stderr, data to
 * stdout.
 */
import { createClient, type GeoClient } from './client.js';
import { toCsv, toRows } from './csv.js';
import { GeoApiError, GeoIncompleteListError } from './errors.js';
import { OPERATIONS } from './operations.js';
import type { GeoErrorCode, ListReadName, ReadName, ReadParams } from './types.js';

/** What the process exits with; docs/clients.md lists them for scripts. */
export const EXIT = {
  ok: 0,
  /** Anything unforeseen (a defect of the CLI). */
  unexpected: 1,
  /** Bad command line, a variable missing, or the API refused the parameters (invalid_request, cursor_expired). */
  usage: 2,
  /** The key: unauthorized, key_revoked, plan_required. */
  auth: 3,
  /** analysis_not_found, not_found. */
  notFound: 4,
  /** rate_limited, still after the retries. */
  budget: 5,
  /** The service or the way to it: 5xx codes, no answer, an answer that is not the API's. */
  fault: 6,
  /**
   * --all wrote every item it got, but the list holds more that no call can reach (a one-page read whose
   * answer says truncated): the data on stdout are short of the list, which a script must not take as whole.
   */
  incomplete: 7,
} as const;

const FORMATS = ['json', 'ndjson', 'csv'] as const;
type Format = (typeof FORMATS)[number];

class UsageError extends Error {}

export function exitCodeOf(code: GeoErrorCode): number {
  switch (code) {
    case 'invalid_request':
    case 'cursor_expired':
      return EXIT.usage;
    case 'unauthorized':
    case 'key_revoked':
    case 'plan_required':
      return EXIT.auth;
    case 'analysis_not_found':
    case 'not_found':
      return EXIT.notFound;
    case 'rate_limited':
      return EXIT.budget;
    default:
      return EXIT.fault;
  }
}

const squash = (name: string): string => name.replace(/[-_]/g, '').toLowerCase();

function findRead(name: string): ReadName {
  const read = (Object.keys(OPERATIONS) as ReadName[]).find((r) => squash(r) === squash(name));
  if (!read) throw new UsageError(`unknown read "${name}"; \`geo --help\` lists them`);
  return read;
}

const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function help(): string {
  const lines = [
    'Usage: geo <read> [--param value]... [--all] [--format json|ndjson|csv] [--quiet] [--max-retries n]',
    '',
    'Environment: GEO_API_KEY (the key), GEO_BASE_URL (the base address, ending with /api/v1).',
    '--all pages through a list read (its --limit is a page size; a one-page read is asked its largest page);',
    "--format csv writes one row per item, the window on each (the rest of the answer, such as list-sources'",
    'categories, only in json); --quiet hides progress and retries;',
    '--max-retries bounds the retries of each call (default 2; a spent budget waits its Retry-After).',
    'Exit codes: 0 ok, 2 usage or parameters refused, 3 key refused, 4 not found, 5 budget spent, 6 fault,',
    '7 --all wrote fewer items than the list holds (no call reaches the rest; stderr says how many), 1 unexpected.',
    '',
    'Reads:',
  ];
  for (const [name, op] of Object.entries(OPERATIONS)) {
    const params = op.params.map((p) => (p.required ? `--${p.name} <${p.type}>` : `[--${p.name} <${p.type}>]`));
    lines.push(`  ${kebab(name)} ${params.join(' ')}`.trimEnd(), `      ${op.summary}${op.paging ? ' (list; --all)' : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

interface Command {
  read: ReadName;
  params: Record<string, string | number>;
  all: boolean;
  format: Format;
  quiet: boolean;
  maxRetries: number | undefined;
}

export function parseArgs(argv: string[]): Command | 'help' {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') return 'help';
  const [name, ...rest] = argv as [string, ...string[]];
  if (name.startsWith('-')) throw new UsageError(`the first argument is the read, not ${name}`);
  const read = findRead(name);
  const op = OPERATIONS[read];
  const params: Record<string, string | number> = {};
  let all = false;
  let quiet = false;
  let format: Format = 'json';
  let maxRetries: number | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (arg === '--all') all = true;
    else if (arg === '--quiet') quiet = true;
    else if (arg === '--help' || arg === '-h') return 'help';
    else if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const key = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      const value: string | undefined = eq === -1 ? rest[++i] : arg.slice(eq + 1);
      if (value === undefined) throw new UsageError(`--${key} needs a value`);
      if (key === 'format') {
        if (!(FORMATS as readonly string[]).includes(value)) throw new UsageError(`--format is one of ${FORMATS.join(', ')}`);
        format = value as Format;
        continue;
      }
      if (key === 'max-retries') {
        if (!/^\d+$/.test(value)) throw new UsageError('--max-retries is a whole number');
        maxRetries = Number(value);
        continue;
      }
      const param = op.params.find((p) => p.name === key);
      if (!param)
        throw new UsageError(`${kebab(read)} takes no --${key} (it takes: ${op.params.map((p) => `--${p.name}`).join(' ') || 'nothing'})`);
      if (key in params) throw new UsageError(`--${key} is given twice`);
      if ('enum' in param && !(param.enum as readonly string[]).includes(value)) {
        throw new UsageError(`--${key} is one of ${(param.enum as readonly string[]).join(', ')}`);
      }
      if (param.type === 'integer') {
        if (!/^\d+$/.test(value)) throw new UsageError(`--${key} is a whole number`);
        params[key] = Number(value);
      } else params[key] = value;
    } else throw new UsageError(`unexpected argument "${arg}"`);
  }
  for (const p of op.params) if (p.required && !(p.name in params)) throw new UsageError(`${kebab(read)} needs --${p.name}`);
  if (all && !op.paging) throw new UsageError(`--all pages through a list; ${kebab(read)} is not one`);
  if (all && 'cursor' in params) throw new UsageError('--all starts from the first page: leave out --cursor');
  return { read, params, all, format, quiet, maxRetries };
}

async function write(text: string): Promise<void> {
  if (!process.stdout.write(text)) await new Promise<void>((resolve) => process.stdout.once('drain', resolve));
}

/** Exits EXIT.ok, or EXIT.incomplete when --all wrote fewer items than the list holds. */
async function run(command: Command, client: GeoClient): Promise<number> {
  const { read, params, format } = command;
  const op = OPERATIONS[read];
  if (command.all) {
    const items: unknown[] = [];
    // The first page's answer: its window and what it says besides the items (the tracked brand), so the
    // CSV of --all has the columns and rows of the same read's CSV without --all.
    let first: Record<string, unknown> | undefined;
    const pages = client.paginate(read as ListReadName, params as ReadParams<ListReadName>, {
      onPage: ({ page, yielded, total, body }) => {
        first ??= body as unknown as Record<string, unknown>;
        if (!command.quiet) process.stderr.write(`geo: page ${page}: ${yielded} of ${total} items\n`);
      },
    });
    let incomplete: GeoIncompleteListError | undefined;
    try {
      for await (const item of pages) {
        if (format === 'ndjson') await write(`${JSON.stringify(item)}\n`);
        else items.push(item);
      }
    } catch (error) {
      // Every item got is written all the same; the shortfall is told after it, and by the exit code.
      if (!(error instanceof GeoIncompleteListError)) throw error;
      incomplete = error;
    }
    if (format === 'json') await write(`${JSON.stringify(items, null, 2)}\n`);
    if (format === 'csv') await write(toCsv(toRows(first ? { ...first, items } : items)));
    if (!incomplete) return EXIT.ok;
    // Not hidden by --quiet: progress is optional, a list short of its total is not.
    process.stderr.write(
      `geo: incomplete: wrote ${incomplete.yielded} of ${incomplete.total} items of ${kebab(read)}: ${incomplete.reason}\n`,
    );
    return EXIT.incomplete;
  }
  const { data } = await client.request(read, params as never);
  const rows = op.rows ? (data as Record<string, unknown>)[op.rows] : undefined;
  if (format === 'json') await write(`${JSON.stringify(data, null, 2)}\n`);
  else if (format === 'ndjson') {
    if (Array.isArray(rows)) for (const item of rows) await write(`${JSON.stringify(item)}\n`);
    else await write(`${JSON.stringify(data)}\n`);
  } else await write(toCsv(toRows(data)));
  return EXIT.ok;
}

export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  let command: Command | 'help';
  try {
    command = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`geo: ${error.message}\n`);
    return EXIT.usage;
  }
  if (command === 'help') {
    process.stdout.write(help());
    return EXIT.ok;
  }
  if (!env.GEO_BASE_URL) {
    process.stderr.write(
      'geo: GEO_BASE_URL is not set: the base address of the API, ending with /api/v1 (`npm start` prints the local one and writes it to .local/demo.json)\n',
    );
    return EXIT.usage;
  }
  if (!env.GEO_API_KEY) {
    process.stderr.write('geo: GEO_API_KEY is not set: the API key (geo_live_...)\n');
    return EXIT.usage;
  }
  const quiet = command.quiet;
  let client: GeoClient;
  try {
    client = createClient({
      apiKey: env.GEO_API_KEY,
      baseUrl: env.GEO_BASE_URL,
      ...(command.maxRetries === undefined ? {} : { maxRetries: command.maxRetries }),
      onRetry: ({ attempt, delayMs, error }) => {
        if (!quiet) process.stderr.write(`geo: ${error.code}, retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s\n`);
      },
    });
  } catch (error) {
    process.stderr.write(`geo: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  try {
    return await run(command, client);
  } catch (error) {
    if (!(error instanceof GeoApiError)) throw error;
    const details = [
      error.status ? `HTTP ${error.status}` : null,
      error.param ? `param ${error.param}` : null,
      error.retryAfter !== null ? `retry after ${error.retryAfter} s` : null,
      error.requestId ? `request id ${error.requestId}` : null,
    ].filter(Boolean);
    process.stderr.write(`geo: ${error.code}: ${error.message}${details.length ? ` (${details.join(', ')})` : ''}\n`);
    return exitCodeOf(error.code);
  }
}

// A reader piped into `head` closes stdout early: that ends the output, it is not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(EXIT.ok);
  throw error;
});

main(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`geo: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = EXIT.unexpected;
  },
);
