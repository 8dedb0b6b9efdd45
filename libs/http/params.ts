import Joi from 'joi';
import { ApiError, badRequest, invalidJsonArgument, missingArgument } from '../core/errors';
import type { Encoding, InferShape, Shape } from '../core/schema';
import { valueProblem } from './body-limits';

/** A route's parameters by name, each declared once with core/schema's `P`. */
export type ParamSpec = Shape;

/** The values a route's parameters validate into. */
export type ParamsOf<S extends ParamSpec> = InferShape<S>;

export interface ParsedParams<T> {
  values: T;
  ignored: string[];
}

function parse(name: string, raw: unknown, encoding: Encoding): unknown {
  // A JSON request body carries values already parsed.
  if (typeof raw !== 'string' || encoding === 'text') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    if (encoding === 'json-or-text') return raw;
    throw invalidJsonArgument(name);
  }
}

function decode(name: string, raw: unknown, encoding: Encoding): unknown {
  const value = parse(name, raw, encoding);
  const problem = valueProblem(value);
  // As Zulip's parser past its recursion limit: not valid JSON.
  if (problem === 'too-deep') throw invalidJsonArgument(name);
  // Django's wording; PostgreSQL cannot store the character anyway.
  if (problem === 'nul') throw badRequest(`${name}: Null characters are not allowed.`);
  return value;
}

function label(path: (string | number)[]): string {
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `["${part}"]`))
    .join('');
}

/** Turns Joi's first error into Zulip's wording for the same failure. */
function toApiError(error: Joi.ValidationError): ApiError {
  const [detail] = error.details;
  if (!detail) return badRequest(error.message);
  const name = label(detail.path);
  const ctx = detail.context ?? {};
  switch (detail.type) {
    case 'any.required':
      return detail.path.length === 1
        ? missingArgument(name)
        : badRequest(`${name} key is missing`);
    case 'number.base':
    case 'number.integer':
    case 'number.unsafe':
      return badRequest(`${name} is not an integer`);
    case 'number.min':
      return badRequest(`${name} is too small`);
    case 'number.max':
      return badRequest(`${name} is too large`);
    case 'boolean.base':
      return badRequest(`${name} is not a boolean`);
    case 'string.base':
      return badRequest(`${name} is not a string`);
    case 'string.max':
      return badRequest(`${name} is too long (limit: ${String(ctx.limit)} characters)`);
    case 'string.min':
    case 'string.empty':
      return badRequest(`${name} cannot be blank`);
    case 'array.base':
      return badRequest(`${name} is not a list`);
    case 'array.max':
      return badRequest(`${name} is too long (limit: ${String(ctx.limit)} items)`);
    case 'object.base':
      return badRequest(`${name} is not a dict`);
    case 'object.unknown':
      return badRequest(`Unexpected key ${name}`);
    case 'any.custom':
      return badRequest(ctx.error instanceof Error ? ctx.error.message : `Invalid ${name}`);
    default:
      return badRequest(`Invalid ${name}`);
  }
}

// Routes declare their spec once; building the Joi object on every request showed up in profiles.
const compiled = new WeakMap<ParamSpec, Joi.ObjectSchema>();

function objectSchema(spec: ParamSpec): Joi.ObjectSchema {
  let schema = compiled.get(spec);
  if (!schema) {
    const keys: Record<string, Joi.Schema> = {};
    for (const [name, param] of Object.entries(spec)) keys[name] = param.schema;
    schema = Joi.object(keys);
    compiled.set(spec, schema);
  }
  return schema;
}

/**
 * Validates the merged query and body parameters of a request against a declaration.
 * Parameters the declaration does not name are returned in `ignored`, for
 * `ignored_parameters_unsupported`.
 */
export function parseParams<S extends ParamSpec>(
  spec: S,
  input: Record<string, unknown>,
): ParsedParams<ParamsOf<S>> {
  // Routes that take no parameters (`GET /users/me`) skip Joi: nothing to validate or default.
  if (Object.keys(spec).length === 0)
    return { values: {} as ParamsOf<S>, ignored: Object.keys(input).sort() };
  const decoded: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [name, raw] of Object.entries(input)) {
    const param = spec[name];
    if (!param) {
      ignored.push(name);
      continue;
    }
    decoded[name] = decode(name, raw, param.encoding);
  }
  const { value, error } = objectSchema(spec).validate(decoded, {
    abortEarly: true,
    convert: true,
    presence: 'optional',
  });
  if (error) throw toApiError(error);
  // Joi checked the values against the very schemas their type is inferred from.
  return { values: value as ParamsOf<S>, ignored: ignored.sort() };
}
