/**
 * Figures as CSV: one row per item of a list (per day of the time series, one row for a read that returns
 * one object), nested objects flattened into dotted columns (`visibility.ci95.low`, `visibility.ci95.high`),
 * arrays of objects keyed by what names each element (`engines.chatgpt.visibility.value`), arrays of plain
 * values as JSON in one cell. Every row of an answer that states its window starts with that window
 * (`window.name`, `window.first_day`, `window.last_day`); the tracked brand of `listCompetitors` is a row
 * of its own (`tracked` true). RFC 4180 quoting, CRLF line ends. The Python client's `to_rows` and
 * `to_csv` follow the same rules, column for column (test/clients/python.test.ts compares them).
 */

export type Cell = string | number | boolean | null;
export type Row = Record<string, Cell>;

function label(element: unknown, index: number): string {
  if (element && typeof element === 'object') {
    const o = element as { key?: unknown; engine?: unknown; id?: unknown };
    if (typeof o.key === 'string') return o.key;
    if (typeof o.engine === 'string') return o.engine;
    if (o.engine && typeof o.engine === 'object' && typeof (o.engine as { key?: unknown }).key === 'string') {
      return (o.engine as { key: string }).key;
    }
    if (typeof o.id === 'string') return o.id;
  }
  return String(index);
}

function flatten(value: unknown, prefix: string, out: Row): void {
  if (value === null || value === undefined) {
    out[prefix] = null;
  } else if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== 'object')) out[prefix] = JSON.stringify(value);
    else
      value.forEach((v, i) => {
        flatten(v, `${prefix}.${label(v, i)}`, out);
      });
  } else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    out[prefix] = value;
  } else {
    out[prefix] = String(value);
  }
}

function flatRow(record: unknown): Row {
  // A list of plain values has no field to name a column by: Python's to_rows calls it `value` too.
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return { value: toCell(record) };
  const row: Row = {};
  flatten(record, '', row);
  return row;
}

function toCell(value: unknown): Cell {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}

/** The window an answer measured, for every one of its rows: rows of several windows can then be stacked. */
function windowColumns(answer: Record<string, unknown>): Row {
  const context = answer.context;
  const window = context && typeof context === 'object' ? (context as { window?: unknown }).window : undefined;
  if (!window || typeof window !== 'object') return {};
  const w = window as Record<string, unknown>;
  return { 'window.name': toCell(w.name), 'window.first_day': toCell(w.first_day), 'window.last_day': toCell(w.last_day) };
}

/**
 * The tracked brand's row in the columns of the competitors' rows: the fields it lacks (`kind`,
 * `competitor_id`, `domain`) stay empty in their place, so that the header keeps the items' order.
 */
function aligned(row: Row, like: Row | undefined): Row {
  const out: Row = {};
  for (const column of Object.keys(like ?? {})) out[column] = column in row ? (row[column] ?? null) : null;
  for (const [column, value] of Object.entries(row)) if (!(column in out)) out[column] = value;
  return out;
}

/**
 * Flat rows of a read's answer: one per element of `items` (a list read) or `points` (the time series),
 * else one for the object itself. The answer's `context` gives the window columns that start every row;
 * the rest of it (state, comparison, coverage...), the paging fields and what a reply says of its list as
 * a whole (the series' `summary` and `segments`, the sources' `categories`) are not rows and are left out:
 * the JSON has them. `listCompetitors`' tracked brand is ranked with its competitors, so it is a row: the
 * first, with `tracked` true (false on the competitors' rows). An array (paginate's items) gives one row
 * per element, as they are.
 */
export function toRows(answer: unknown): Row[] {
  if (Array.isArray(answer)) return answer.map(flatRow);
  if (answer === null || typeof answer !== 'object') return [flatRow(answer)];
  const body = answer as Record<string, unknown>;
  const head = windowColumns(body);
  let records: unknown[];
  if (Array.isArray(body.items)) records = body.items;
  else if (Array.isArray(body.points)) records = body.points;
  else {
    const { context: _context, ...rest } = body;
    records = [rest];
  }
  const rows = records.map(flatRow);
  const tracked = Array.isArray(body.items) ? body.tracked : undefined;
  if (tracked && typeof tracked === 'object') {
    return [{ ...head, tracked: true, ...aligned(flatRow(tracked), rows[0]) }, ...rows.map((row) => ({ ...head, tracked: false, ...row }))];
  }
  return rows.map((row) => ({ ...head, ...row }));
}

// A spreadsheet runs a cell that starts with one of these as a formula; answer texts and cited URLs are
// third-party content, so such a text cell gets a leading apostrophe (numbers are written as numbers).
const FORMULA_START = /^[=+\-@\t\r]/;

function cell(value: Cell): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The CSV text of the rows: a header of every column in the order first met, then one line per row. */
export function toCsv(rows: Row[]): string {
  const columns: string[] = [];
  const known = new Set<string>();
  for (const row of rows) {
    for (const c of Object.keys(row)) {
      if (!known.has(c)) {
        known.add(c);
        columns.push(c);
      }
    }
  }
  const header = leafColumns(columns);
  const lines = [header.map((c) => cell(c)).join(',')];
  for (const row of rows) lines.push(header.map((c) => cell(row[c] ?? null)).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * The columns that hold values: an object null in one row (a series day's `change` on its first day) and
 * flattened in another gives a column of its own name beside its dotted ones; its cells are all empty, so
 * its leaves take its place.
 */
function leafColumns(columns: string[]): string[] {
  const isParent = (c: string) => columns.some((k) => k.startsWith(`${c}.`));
  const out: string[] = [];
  const placed = new Set<string>();
  for (const c of columns) {
    const group = isParent(c) ? columns.filter((k) => k.startsWith(`${c}.`) && !isParent(k)) : [c];
    for (const k of group) {
      if (placed.has(k)) continue;
      placed.add(k);
      out.push(k);
    }
  }
  return out;
}
