/**
 * A small, strict RFC 6570 (URI Template, levels 1-4) parser and expander, used for
 * linkifier URL templates such as `https://github.com/{org}/{repo}/issues/{id}`.
 */

type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

interface VarSpec {
  name: string;
  explode: boolean;
  prefix?: number;
}

interface Expression {
  op: Operator;
  vars: VarSpec[];
}

type Part = string | Expression;

const OPERATORS = new Set(['+', '#', '.', '/', ';', '?', '&']);
// varname = varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / pct-encoded
const VARNAME_RE = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;
// Literal characters allowed outside expressions (RFC 6570 section 2.1).
// eslint-disable-next-line no-control-regex -- control characters are exactly what is excluded
const LITERAL_RE = /^(?:[^\x00-\x20"'%<>\\^`{|}\x7f]|%[0-9A-Fa-f]{2})*$/;

export class UrlTemplateError extends Error {}

export function parseUrlTemplate(template: string): Part[] {
  const parts: Part[] = [];
  let pos = 0;
  while (pos < template.length) {
    const open = template.indexOf('{', pos);
    const literal = open === -1 ? template.slice(pos) : template.slice(pos, open);
    if (literal.includes('}') || !LITERAL_RE.test(literal)) {
      throw new UrlTemplateError(`Invalid literal: ${literal}`);
    }
    if (literal) parts.push(literal);
    if (open === -1) break;
    const close = template.indexOf('}', open);
    if (close === -1) throw new UrlTemplateError('Unclosed expression');
    parts.push(parseExpression(template.slice(open + 1, close)));
    pos = close + 1;
  }
  return parts;
}

function parseExpression(body: string): Expression {
  if (body.includes('{')) throw new UrlTemplateError('Nested expression');
  let op: Operator = '';
  const first = body[0];
  if (first !== undefined && OPERATORS.has(first)) {
    op = first as Operator;
    body = body.slice(1);
  }
  if (!body) throw new UrlTemplateError('Empty expression');
  const vars = body.split(',').map((spec): VarSpec => {
    let name = spec;
    let explode = false;
    let prefix: number | undefined;
    if (name.endsWith('*')) {
      explode = true;
      name = name.slice(0, -1);
    } else {
      const [, prefixed, length] = /^(.*):([1-9][0-9]{0,3})$/.exec(name) ?? [];
      if (prefixed !== undefined && length !== undefined) {
        name = prefixed;
        prefix = Number(length);
      }
    }
    if (!VARNAME_RE.test(name)) throw new UrlTemplateError(`Invalid variable name: ${spec}`);
    return { name, explode, prefix };
  });
  return { op, vars };
}

export function templateVariableNames(template: string): string[] {
  const names = new Set<string>();
  for (const part of parseUrlTemplate(template)) {
    if (typeof part !== 'string') for (const v of part.vars) names.add(v.name);
  }
  return [...names];
}

/**
 * Linkifier links are rendered into `href`, so the scheme must be a literal `http` or `https`:
 * never `javascript:` or `data:`, and never taken from what the message matched.
 */
export function requireWebScheme(template: string): void {
  const first = parseUrlTemplate(template)[0];
  if (typeof first !== 'string' || !/^https?:\/\//i.test(first)) {
    throw new UrlTemplateError('Only http and https URL templates are allowed');
  }
}

function encode(value: string, allowReserved: boolean): string {
  if (!allowReserved) {
    return encodeURIComponent(value).replace(
      /[!'()*]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
    );
  }
  // Keep reserved characters and existing pct-encodings.
  return value
    .split(/(%[0-9A-Fa-f]{2})/g)
    .map((chunk, i) =>
      i % 2 === 1 ? chunk : encodeURI(chunk).replace(/%5B/g, '[').replace(/%5D/g, ']'),
    )
    .join('');
}

const OP_SETTINGS: Record<
  Operator,
  { first: string; sep: string; named: boolean; ifEmpty: string; reserved: boolean }
> = {
  '': { first: '', sep: ',', named: false, ifEmpty: '', reserved: false },
  '+': { first: '', sep: ',', named: false, ifEmpty: '', reserved: true },
  '#': { first: '#', sep: ',', named: false, ifEmpty: '', reserved: true },
  '.': { first: '.', sep: '.', named: false, ifEmpty: '', reserved: false },
  '/': { first: '/', sep: '/', named: false, ifEmpty: '', reserved: false },
  ';': { first: ';', sep: ';', named: true, ifEmpty: '', reserved: false },
  '?': { first: '?', sep: '&', named: true, ifEmpty: '=', reserved: false },
  '&': { first: '&', sep: '&', named: true, ifEmpty: '=', reserved: false },
};

/** Expands a template with string values; undefined values are omitted, per RFC 6570. */
export function expandUrlTemplate(
  template: string,
  values: Record<string, string | undefined>,
): string {
  return parseUrlTemplate(template)
    .map((part) => {
      if (typeof part === 'string') return part;
      const s = OP_SETTINGS[part.op];
      const pieces: string[] = [];
      for (const v of part.vars) {
        const raw = values[v.name];
        if (raw === undefined) continue;
        const value = encode(v.prefix ? [...raw].slice(0, v.prefix).join('') : raw, s.reserved);
        if (s.named) pieces.push(raw === '' ? v.name + s.ifEmpty : `${v.name}=${value}`);
        else pieces.push(value);
      }
      return pieces.length ? s.first + pieces.join(s.sep) : '';
    })
    .join('');
}
