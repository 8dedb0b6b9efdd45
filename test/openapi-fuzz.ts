import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';

/**
 * Request generators for the OpenAPI-driven fuzz test: Zulip's description (feature level 247)
 * says what each endpoint takes; fast-check turns that into valid, boundary and type-confused
 * requests, encoded the way Zulip clients send them (form fields; lists and objects as JSON).
 */

export interface Schema {
  type?: string;
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  example?: unknown;
  $ref?: string;
}

/** One parameter of an operation, wherever it travels. */
export interface Param {
  name: string;
  in: 'path' | 'query' | 'body';
  required: boolean;
  schema: Schema;
  /** Sent as JSON text (lists, objects, and what the description marks application/json). */
  json: boolean;
}

export interface Operation {
  method: string;
  /** OpenAPI form: `/users/{user_id}`. */
  path: string;
  params: Param[];
}

interface RawParam {
  $ref?: string;
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
  content?: Record<string, { schema: Schema }>;
}

interface RawOperation {
  parameters?: RawParam[];
  requestBody?: {
    content?: Record<
      string,
      { schema?: Schema; encoding?: Record<string, { contentType?: string }> }
    >;
  };
}

type Doc = {
  paths: Record<string, Record<string, RawOperation>>;
  components: Record<string, Record<string, unknown>>;
};

let doc: Doc | null = null;
let docText = '';

function load(): Doc {
  if (!doc) {
    docText = readFileSync(path.join(__dirname, 'fixtures/zulip-openapi-fl247.yaml'), 'utf8');
    doc = yaml.load(docText) as Doc;
  }
  return doc;
}

function deref<T>(node: T | { $ref: string }): T {
  const ref = (node as { $ref?: string }).$ref;
  if (!ref) return node as T;
  const [, , section, name] = ref.split('/');
  return deref(load().components[section][name] as T);
}

const isJsonType = (s: Schema) =>
  ['array', 'object'].includes(deref<Schema>(s).type ?? '') ||
  Boolean(s.oneOf ?? s.anyOf ?? s.allOf);

/** Every operation of the description, with its parameters resolved. */
export function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [p, ops] of Object.entries(load().paths)) {
    for (const [method, raw] of Object.entries(ops)) {
      if (!['get', 'post', 'patch', 'put', 'delete'].includes(method)) continue;
      const params: Param[] = [];
      for (const rp of (raw.parameters ?? []).map((r) => deref<RawParam>(r))) {
        const jsonContent = rp.content?.['application/json']?.schema;
        params.push({
          name: rp.name,
          in: rp.in === 'path' ? 'path' : 'query',
          required: rp.required === true,
          schema: deref<Schema>(jsonContent ?? rp.schema ?? {}),
          json: jsonContent !== undefined,
        });
      }
      const form = raw.requestBody?.content?.['application/x-www-form-urlencoded'];
      const body = form?.schema ? deref<Schema>(form.schema) : undefined;
      for (const [name, s] of Object.entries(body?.properties ?? {})) {
        const schema = deref<Schema>(s);
        params.push({
          name,
          in: 'body',
          required: body?.required?.includes(name) ?? false,
          schema,
          json: form?.encoding?.[name]?.contentType === 'application/json' || isJsonType(schema),
        });
      }
      out.push({ method, path: p, params });
    }
  }
  return out;
}

/** Error codes the description documents, beside Zulip's own names for the failures it lists. */
export function documentedErrorCodes(): Set<string> {
  load();
  const codes = new Set<string>();
  for (const m of docText.matchAll(/"code":\s*"([A-Z_]+)"|\bcode:\s*"?([A-Z][A-Z_]+)"?/g)) {
    codes.add(m[1] ?? m[2]);
  }
  return codes;
}

/** A value the schema accepts (the generator does not know cross-field rules). */
export function validValue(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = deref<Schema>(schema);
  if (s.enum) return fc.constantFrom(...s.enum);
  const variants = s.oneOf ?? s.anyOf ?? (s.allOf ? [s.allOf[0]] : undefined);
  if (variants) return fc.oneof(...variants.map((v) => validValue(v, depth + 1)));
  const example = s.example !== undefined ? [fc.constant(s.example)] : [];
  switch (s.type) {
    case 'integer':
      return fc.oneof(
        ...example,
        fc.integer({ min: s.minimum ?? -5, max: Math.min(s.maximum ?? 5000, 2 ** 31 - 1) }),
      );
    case 'number':
      return fc.oneof(...example, fc.double({ noNaN: true, min: -1e6, max: 1e6 }));
    case 'boolean':
      return fc.boolean();
    case 'string':
      return fc.oneof(
        ...example,
        fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 30, 30) }),
      );
    case 'array':
      return depth > 3
        ? fc.constant([])
        : fc.array(validValue(s.items ?? {}, depth + 1), { maxLength: 3 });
    case 'object': {
      if (depth > 3 || !s.properties) return fc.oneof(...example, fc.constant({}));
      const props = Object.fromEntries(
        Object.entries(s.properties).map(([k, v]) => [k, validValue(v, depth + 1)]),
      );
      return fc.record(props, { requiredKeys: s.required ?? [] });
    }
    default:
      return fc.oneof(...example, fc.jsonValue({ maxDepth: 2 }));
  }
}

/** Values at the edges of what the schema allows. */
export function boundaryValue(schema: Schema): fc.Arbitrary<unknown> {
  const s = deref<Schema>(schema);
  switch (s.type) {
    case 'integer':
    case 'number':
      return fc.constantFrom(
        0,
        -1,
        1,
        (s.minimum ?? 0) - 1,
        (s.maximum ?? 2 ** 31) + 1,
        2 ** 31 - 1,
        2 ** 31,
        2 ** 53 - 1,
        -(2 ** 31),
      );
    case 'string':
      return fc.constantFrom(
        '',
        ' ',
        'x'.repeat(61),
        'x'.repeat(1001),
        '\u0000',
        'é😀\u200b',
        'a'.repeat(10000),
      );
    case 'array':
      return fc.constantFrom([], Array(1001).fill(1), [null]);
    case 'object':
      return fc.constantFrom({}, { '': null });
    default:
      return validValue(s);
  }
}

const deepJson = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/**
 * Wire values that have the wrong type, are huge, nest deep, overflow integers or name enum
 * members that do not exist. `maxLength` keeps query strings under Node's header limit.
 */
export function hostileWireValue(maxLength: number): fc.Arbitrary<string> {
  const huge = Math.min(maxLength, 200000);
  return fc.oneof(
    fc.constantFrom(
      '',
      '-1',
      '-2147483649',
      '2147483648',
      '9007199254740993',
      '9223372036854775808',
      '-9223372036854775809',
      '99999999999999999999999999',
      '1e400',
      '-0',
      '1.5',
      'NaN',
      'Infinity',
      'true',
      'null',
      '[]',
      '{}',
      '""',
      '[null]',
      '[-1]',
      '[1e400]',
      '[9223372036854775808]',
      '{"__proto__": {"polluted": 1}}',
      '{"a":',
      'not json',
      'unknown_enum_member',
      '"unknown_enum_member"',
      '\u0000',
      '\ud800',
      "'; DROP TABLE zerver_message; --",
      '<script>alert(1)</script>',
      '../../etc/passwd',
      '%00',
      '[{"operator": "search", "operand": {"$gt": ""}}]',
      '[{"operator": ["is"], "operand": "starred"}]',
      '[["is"]]',
      '{"x": [[[[[[]]]]]]}',
    ),
    fc.constant(deepJson(Math.min(5000, Math.floor(maxLength / 2)))),
    fc.constant('x'.repeat(huge)),
    fc.constant(JSON.stringify(Array.from({ length: Math.floor(huge / 8) }, (_, i) => i))),
    fc.string({ maxLength: 40, unit: 'binary' }),
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  );
}

/** How a value travels: text for strings, numbers and booleans, JSON for the rest. */
export function encode(param: Param, value: unknown): string {
  if (typeof value === 'string' && !param.json) return value;
  if ((typeof value === 'number' || typeof value === 'boolean') && !param.json) {
    return String(value);
  }
  return JSON.stringify(value) ?? '';
}
