import Joi from 'joi';

/**
 * Whether a value may be absent: `optional` values may be missing, `required` ones must be
 * given, and `default` ones are filled in when missing, so they are always there after validation.
 */
export type Presence = 'optional' | 'required' | 'default';

/**
 * How a request parameter travels in a form value: plain text (strings, and integers and
 * booleans as text), JSON text (lists and objects), or either (e.g. `to`, which may be a channel
 * name or a JSON list). Only a parameter's own encoding matters, not that of the values inside it.
 */
export type Encoding = 'text' | 'json' | 'json-or-text';

/**
 * A Joi schema together with the TypeScript type of the values it accepts, so that a request
 * parameter is declared once and its type is inferred (`InferShape`) instead of written again.
 * Joi's own types cannot follow presence, `valid()` or object keys, hence this thin wrapper.
 */
export class Typed<T, R extends Presence = 'optional'> {
  /** Type-only: never set, it carries `T` for inference. */
  declare readonly _type?: T;

  constructor(
    readonly schema: Joi.Schema,
    readonly encoding: Encoding,
    readonly presence: R,
  ) {}

  required(): Typed<T, 'required'> {
    return new Typed(this.schema.required(), this.encoding, 'required');
  }

  default(value: T): Typed<T, 'default'> {
    // Every T a builder below produces is one of Joi's basic types.
    return new Typed(this.schema.default(value as Joi.BasicType), this.encoding, 'default');
  }

  nullable(): Typed<T | null, R> {
    return new Typed(this.schema.allow(null), this.encoding, this.presence);
  }

  /** Replaces Joi's error texts, e.g. to give one wording to every failed alternative. */
  messages(messages: Joi.LanguageMessages): Typed<T, R> {
    return new Typed(this.schema.messages(messages), this.encoding, this.presence);
  }
}

type AnyTyped = Typed<unknown, Presence>;
export type Shape = Record<string, AnyTyped>;

/** The type of the values a schema accepts. */
export type Infer<S extends AnyTyped> = S extends Typed<infer T, Presence> ? T : never;

/** Keys whose value may be missing (also when the schema is one of several, some optional). */
type OptionalKeys<S extends Shape> = {
  [K in keyof S]: 'optional' extends S[K]['presence'] ? K : never;
}[keyof S];

type Flatten<T> = { [K in keyof T]: T[K] } & {};

/** The object a set of named schemas validates into: optional ones may be missing. */
export type InferShape<S extends Shape> = Flatten<
  { [K in Exclude<keyof S, OptionalKeys<S>>]: Infer<S[K]> } & {
    [K in OptionalKeys<S>]?: Infer<S[K]>;
  }
>;

/**
 * The builders take a schema without presence, default or `null` (those are set through
 * `Typed`'s methods), so that the inferred type says what validation lets through.
 */
function bare<J extends Joi.Schema>(schema: J): J {
  const { flags, allow } = schema.describe();
  const { presence, default: dflt } = (flags ?? {}) as { presence?: unknown; default?: unknown };
  if (presence !== undefined || dflt !== undefined || allow?.includes(null)) {
    throw new Error(
      'declare presence, defaults and null with .required(), .default(), .nullable()',
    );
  }
  return schema;
}

const text = <T>(schema: Joi.Schema) => new Typed<T>(bare(schema), 'text', 'optional');
const json = <T>(schema: Joi.Schema) => new Typed<T>(schema, 'json', 'optional');

function keysOf(shape: Shape): Record<string, Joi.Schema> {
  return Object.fromEntries(Object.entries(shape).map(([name, s]) => [name, s.schema]));
}

/** Limits on a list's length, checked after its items. */
interface Length {
  min?: number;
  max?: number;
  length?: number;
}

/**
 * Builders of request parameters and of the values inside them. Scalars travel as text, lists,
 * objects and alternatives as JSON; `json` and `jsonOrText` choose otherwise.
 */
export const P = {
  /** A string, empty allowed unless the given schema says otherwise (`Joi.string()`). */
  string: (schema: Joi.StringSchema = Joi.string().allow('')) => text<string>(schema),
  int: (schema: Joi.NumberSchema = Joi.number().integer()) => text<number>(schema),
  number: (schema: Joi.NumberSchema = Joi.number()) => text<number>(schema),
  bool: (schema: Joi.BooleanSchema = Joi.boolean()) => text<boolean>(schema),
  /** Any value at all (e.g. the items of a list checked elsewhere). */
  any: () => new Typed<unknown>(Joi.any(), 'json', 'optional'),
  /** One of the given strings. */
  oneOf: <const V extends string>(...values: V[]) =>
    new Typed<V>(Joi.string().valid(...values), 'text', 'optional'),

  /** A list whose items each match `items` (or one of several, as Joi's `items(a, b)`). */
  array<S extends AnyTyped | AnyTyped[]>(
    items: S,
    limits: Length = {},
  ): Typed<Infer<S extends AnyTyped[] ? S[number] : S>[]> {
    let schema = Joi.array().items(...[items].flat().map((item) => item.schema));
    if (limits.min !== undefined) schema = schema.min(limits.min);
    if (limits.max !== undefined) schema = schema.max(limits.max);
    if (limits.length !== undefined) schema = schema.length(limits.length);
    return json(schema);
  },
  /** An object with exactly these keys (those not required may be missing). */
  object: <S extends Shape>(shape: S) => json<InferShape<S>>(Joi.object(keysOf(shape))),
  /** An object of any keys, each holding such a value. */
  record: <T>(value: Typed<T, Presence>) =>
    json<Record<string, T>>(Joi.object().pattern(Joi.string(), value.schema)),
  /** An object of any keys and values. */
  dict: () => json<Record<string, unknown>>(Joi.object().unknown(true)),
  /** A value matching one of the schemas, tried in order. */
  alternatives: <const S extends AnyTyped[]>(...types: S) =>
    json<Infer<S[number]>>(Joi.alternatives().try(...types.map((t) => t.schema))),

  /** The value is JSON text in a form. */
  json: <T, R extends Presence>(typed: Typed<T, R>) =>
    new Typed<T, R>(typed.schema, 'json', typed.presence),
  /** The value is JSON text in a form, or else the text itself (e.g. a channel name). */
  jsonOrText: <T, R extends Presence>(typed: Typed<T, R>) =>
    new Typed<T, R>(typed.schema, 'json-or-text', typed.presence),
  /** The same parameter under each of several names (e.g. every group setting of a channel). */
  each: <N extends string, T extends AnyTyped>(names: readonly N[], typed: T) =>
    Object.fromEntries(names.map((name) => [name, typed])) as Record<N, T>,
  /** Some of the parameters of a set. */
  pick: <S extends Shape, K extends keyof S & string>(shape: S, names: readonly K[]) =>
    Object.fromEntries(names.map((name) => [name, shape[name]])) as Pick<S, K>,
};
