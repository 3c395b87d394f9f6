/**
 * Figures as CSV: one row per item (per day on the time series, one row for a read that returns one
 * object), nested objects flattened into dotted columns (`visibility.ci95.low`, `visibility.ci95.high`),
 * arrays of objects keyed by what names each element (`engines.chatgpt.visibility.value`), arrays of plain
 * values as JSON in one cell. RFC 4180 quoting, CRLF line ends.
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

/** Flat rows: one per element of `items` (an array), else one for the object itself. */
export function toRows(items: unknown): Row[] {
  const list = Array.isArray(items) ? items : [items];
  return list.map((item) => {
    const row: Row = {};
    flatten(item, '', row);
    return row;
  });
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
