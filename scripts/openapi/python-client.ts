/**
 * The generated part of the Python client (clients/python/src/geo_api/_generated.py), written by
 * `npm run openapi` from openapi/openapi.json: a TypedDict per schema, the table of reads (path,
 * parameters, how each list pages) and one method per read named as its MCP tool. The hand-written rest
 * of the package (transport, retries, paging, errors) uses only that table. Standard library only, Python
 * 3.10+: no `NotRequired` (3.11), so a schema with optional fields is a required base and a `total=False`
 * subclass. test/openapi/python-client.test.ts fails when the committed module is not what this makes.
 */

type Schema = Record<string, unknown>;
type Doc = {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema>; parameters?: Record<string, Schema> };
};

/** Where the generated module lives, relative to the repository root. */
export const PYTHON_GENERATED_FILE = 'clients/python/src/geo_api/_generated.py';

const SCHEMAS = '#/components/schemas/';
const PY_KEYWORDS = new Set(['from', 'class', 'def', 'import', 'global', 'in', 'is', 'not', 'or', 'and', 'pass', 'return', 'lambda']);

const pascal = (id: string): string =>
  id
    .split(/[_\W]+/)
    .filter(Boolean)
    .map((w) => w[0]?.toUpperCase() + w.slice(1))
    .join('');

const pyString = (s: string): string => JSON.stringify(s);

/** A description as comment lines (`#: ` is what Sphinx and IDEs read as the field's documentation). */
function comment(text: unknown, indent: string): string[] {
  if (typeof text !== 'string' || text === '') return [];
  return text.split('\n').map((line) => `${indent}#: ${line}`.trimEnd());
}

function docstring(text: unknown, indent: string): string[] {
  if (typeof text !== 'string' || text === '') return [];
  const body = text.replaceAll('\\', '\\\\').replaceAll('"""', '\\"\\"\\"');
  const lines = body.split('\n').map((line, i) => (i === 0 || line === '' ? line : `${indent}${line}`));
  return [`${indent}"""${lines.join('\n')}"""`, ''];
}

interface Emitted {
  name: string;
  lines: string[];
}

/** Turns the document's schemas into TypedDict classes, in an order where every base comes first. */
class TypeWriter {
  readonly classes: Emitted[] = [];
  private readonly done = new Set<string>();
  private readonly pending = new Set<string>();

  constructor(private readonly schemas: Record<string, Schema>) {}

  /** The Python type of a schema; nested objects become classes named after where they sit. */
  typeOf(schema: Schema, where: string): string {
    if (typeof schema.$ref === 'string') return this.named(schema.$ref.slice(SCHEMAS.length));
    for (const key of ['anyOf', 'oneOf'] as const) {
      const options = schema[key];
      if (Array.isArray(options)) return this.union(options.map((o, i) => this.typeOf(o as Schema, `${where}${i}`)));
    }
    if (Array.isArray(schema.allOf) && schema.properties === undefined && schema.allOf.length === 1)
      return this.typeOf(schema.allOf[0] as Schema, where);
    if (schema.const !== undefined) return `Literal[${JSON.stringify(schema.const)}]`;
    const types = (Array.isArray(schema.type) ? schema.type : [schema.type]) as Array<string | undefined>;
    if (Array.isArray(schema.enum)) {
      const values = schema.enum.filter((v) => v !== null).map((v) => JSON.stringify(v));
      return this.union([`Literal[${values.join(', ')}]`, ...(schema.enum.includes(null) || types.includes('null') ? ['None'] : [])]);
    }
    return this.union(types.map((t) => this.scalar(t, schema, where)));
  }

  private scalar(type: string | undefined, schema: Schema, where: string): string {
    switch (type) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'array':
        return `List[${schema.items ? this.typeOf(schema.items as Schema, `${where}Item`) : 'Any'}]`;
      case 'object':
        if (schema.properties) return this.inline(schema, where);
        if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
          return `Dict[str, ${Object.keys(schema.additionalProperties).length ? this.typeOf(schema.additionalProperties as Schema, `${where}Value`) : 'Any'}]`;
        return 'Dict[str, Any]';
      default:
        return 'Any';
    }
  }

  private union(types: string[]): string {
    const unique = [...new Set(types)];
    const nullable = unique.includes('None');
    const rest = unique.filter((t) => t !== 'None');
    const inner = rest.length === 1 ? (rest[0] as string) : `Union[${rest.join(', ')}]`;
    if (rest.length === 0) return 'None';
    return nullable ? `Optional[${inner}]` : inner;
  }

  private named(id: string): string {
    const schema = this.schemas[id];
    if (!schema) throw new Error(`no schema ${id}`);
    const name = pascal(id);
    if (!this.done.has(name) && !this.pending.has(name)) this.emit(name, schema, id);
    return name;
  }

  private inline(schema: Schema, where: string): string {
    if (!this.done.has(where) && !this.pending.has(where)) this.emit(where, schema, where);
    return where;
  }

  private readonly sources = new Map<string, string>();

  private emit(name: string, schema: Schema, id: string): void {
    const source = JSON.stringify(schema);
    if (this.sources.has(name) && this.sources.get(name) !== source) throw new Error(`two schemas would be the class ${name}`);
    this.sources.set(name, source);
    this.pending.add(name);
    const bases: string[] = [];
    for (const part of (schema.allOf ?? []) as Schema[]) {
      if (typeof part.$ref !== 'string') throw new Error(`${id}: allOf holds something other than a reference`);
      bases.push(this.named(part.$ref.slice(SCHEMAS.length)));
    }
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const required = new Set((schema.required ?? []) as string[]);
    const field = (prop: string, s: Schema): string[] => {
      if (PY_KEYWORDS.has(prop) || !/^[A-Za-z_]\w*$/.test(prop)) throw new Error(`${id}.${prop} is not a Python name`);
      return [...comment(s.description, '    '), `    ${prop}: ${this.typeOf(s, `${name}${pascal(prop)}`)}`];
    };
    const mandatory = Object.entries(properties).filter(([p]) => required.has(p));
    const optional = Object.entries(properties).filter(([p]) => !required.has(p));
    const head = (cls: string, base: string[], extra = ''): string =>
      `class ${cls}(${[...(base.length ? base : ['TypedDict'])].join(', ')}${extra}):`;
    const lines: string[] = [];
    if (optional.length && mandatory.length) {
      lines.push(head(`_${name}Required`, bases), ...docstring('The fields always present.', '    '));
      for (const [p, s] of mandatory) lines.push(...field(p, s));
      lines.push('', '');
      lines.push(head(name, [`_${name}Required`], ', total=False'), ...docstring(schema.description, '    '));
      for (const [p, s] of optional) lines.push(...field(p, s));
    } else {
      lines.push(head(name, bases, optional.length ? ', total=False' : ''), ...docstring(schema.description, '    '));
      for (const [p, s] of [...mandatory, ...optional]) lines.push(...field(p, s));
      if (!mandatory.length && !optional.length) lines.push('    pass');
    }
    this.pending.delete(name);
    this.done.add(name);
    this.classes.push({ name, lines });
  }
}

interface Param {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description?: string;
  schema: Schema;
}

/** How a list read goes on past its first page (docs/contract.md#common-parameters, rule 5). */
function pagingOf(params: Param[], response: Schema): 'cursor' | 'offset' | 'single' | null {
  const props = (response.properties ?? {}) as Record<string, Schema>;
  if (!props.items) return null;
  if (params.some((p) => p.name === 'cursor')) return 'cursor';
  if (params.some((p) => p.name === 'offset')) return 'offset';
  return 'single';
}

const pyArg = (name: string): string => (PY_KEYWORDS.has(name) ? `${name}_` : name);

/** The text of clients/python/src/geo_api/_generated.py for a document. */
export function pythonClientModule(doc: Doc): string {
  const writer = new TypeWriter(doc.components.schemas);
  const resolve = (p: Schema): Param =>
    (typeof p.$ref === 'string' ? doc.components.parameters?.[p.$ref.split('/').pop() as string] : p) as unknown as Param;
  const reads: string[] = [];
  const methods: string[] = [];
  const codes = new Map<string, number>();
  for (const [path, item] of Object.entries(doc.paths)) {
    const op = item.get;
    const ref = (((op?.responses as Schema)?.['200'] as Schema)?.content as Schema)?.['application/json'] as Schema | undefined;
    const target = (ref?.schema as Schema | undefined)?.$ref;
    // The reads are the GET operations answering a named schema; the MCP endpoint and this document are not.
    if (!op || typeof target !== 'string' || !Array.isArray(op.tags) || ['assistant', 'contract'].includes(String(op.tags[0]))) continue;
    const name = String(op.operationId);
    const params = ((op.parameters ?? []) as Schema[]).map(resolve);
    const responseId = target.slice(SCHEMAS.length);
    const result = writer.typeOf({ $ref: target }, name);
    const paging = pagingOf(params, doc.components.schemas[responseId] as Schema);
    const limit = params.find((p) => p.name === 'limit')?.schema.maximum;
    for (const [status, r] of Object.entries(op.responses as Record<string, Schema>)) {
      const component = typeof r.$ref === 'string' ? r.$ref.split('/').pop() : undefined;
      if (component && status !== '200') for (const code of component.split('_or_')) codes.set(code, Number(status));
    }
    const pathParams = params.filter((p) => p.in === 'path');
    const queryParams = params.filter((p) => p.in === 'query');
    reads.push(
      `    ${pyString(name)}: Read(`,
      `        path=${pyString(path)},`,
      `        path_params=(${pathParams.map((p) => `${pyString(p.name)}, `).join('')}),`,
      `        query_params=(${queryParams.map((p) => `${pyString(p.name)}, `).join('')}),`,
      `        paging=${paging ? pyString(paging) : 'None'},`,
      `        max_limit=${typeof limit === 'number' ? limit : 'None'},`,
      '    ),',
    );
    const signature = [
      'self',
      ...pathParams.map((p) => `${pyArg(p.name)}: str`),
      ...(queryParams.length ? ['*'] : []),
      ...queryParams.map((p) => `${pyArg(p.name)}: ${writer.typeOf({ ...p.schema, type: p.schema.type }, name)} | None = None`),
    ];
    const argDocs = params.map((p) => `    ${pyArg(p.name)}: ${(p.description ?? '').replaceAll('\n', ' ')}`);
    const text = `${String(op.summary)}.\n\n${String(op.description).split('\n\n')[0]}${argDocs.length ? `\n\nArgs:\n${argDocs.join('\n')}` : ''}`;
    methods.push(
      `    def ${name}(${signature.join(', ')}) -> ${result}:`,
      ...docstring(`${text}\n`, '        ').slice(0, 1),
      `        return self._read(${pyString(name)}, {${params.map((p) => `${pyString(p.name)}: ${pyArg(p.name)}`).join(', ')}})`,
      '',
    );
  }
  const codeLines = [...codes].sort(([a], [b]) => (a < b ? -1 : 1)).map(([code, status]) => `    ${pyString(code)}: ${status},`);
  return [
    '# Generated by `npm run openapi` from openapi/openapi.json (scripts/openapi/python-client.ts). Do not edit.',
    '"""The types, the table of reads and one method per read, as the OpenAPI document states them."""',
    '',
    'from __future__ import annotations',
    '',
    'from typing import Any, Dict, List, Literal, Mapping, NamedTuple, Optional, TypedDict, Union',
    '',
    '',
    ...writer.classes.flatMap((c) => [...c.lines, '', '']),
    'class Read(NamedTuple):',
    '    """How one read is called: its path, its parameters and how its list pages (None: not a list)."""',
    '',
    '    path: str',
    '    path_params: tuple[str, ...]',
    '    query_params: tuple[str, ...]',
    '    paging: Optional[Literal["cursor", "offset", "single"]]',
    '    max_limit: Optional[int]',
    '',
    '',
    '#: The reads, by MCP tool name.',
    'READS: Mapping[str, Read] = {',
    ...reads,
    '}',
    '',
    '#: The error codes a read can answer, with their HTTP status.',
    'ERROR_CODES: Mapping[str, int] = {',
    ...codeLines,
    '}',
    '',
    '',
    'class Reads:',
    '    """One method per read, named as its MCP tool; each returns the decoded JSON body."""',
    '',
    '    def _read(self, name: str, params: Mapping[str, Any]) -> Any:',
    '        raise NotImplementedError',
    '',
    ...methods.slice(0, -1),
    '',
  ].join('\n');
}
