import Ajv, { type ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';

/**
 * Checks response bodies against Zulip's published OpenAPI description (feature level 247).
 * Fields newer than that description (the spec wins there) are named per call in `newerFields`
 * and removed before validation, so everything else must match exactly.
 */
const DOC_ID = 'zulip-openapi';
let ajv: Ajv | null = null;
let paths: Record<string, Record<string, { responses?: Record<string, { $ref?: string }> }>> = {};
const compiled = new Map<string, ValidateFunction>();

function load(): Ajv {
  if (ajv) return ajv;
  const doc = yaml.load(
    readFileSync(path.join(__dirname, 'fixtures/zulip-openapi-fl247.yaml'), 'utf8'),
  ) as Record<string, unknown>;
  paths = doc.paths as typeof paths;
  ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(toJsonSchema(doc) as Record<string, unknown>, DOC_ID);
  return ajv;
}

/** OpenAPI 3.0's `nullable: true` becomes JSON Schema's `null` type (or nothing, where no type is named). */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = toJsonSchema(value);
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  }
  return out;
}

const pointerEscape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export interface OpenApiCheck {
  status?: number;
  /** Top-level fields added after feature level 247 (per the spec), allowed beside the documented ones. */
  newerFields?: string[];
}

export function openApiErrors(
  apiPath: string,
  method: string,
  body: unknown,
  check: OpenApiCheck = {},
): string[] {
  const status = String(check.status ?? 200);
  const validator = load();
  // A shared response (`$ref: "#/components/responses/SimpleSuccess"`) is read where it lives.
  const shared = paths[apiPath]?.[method.toLowerCase()]?.responses?.[status]?.$ref;
  const response =
    shared ?? `#/paths/${pointerEscape(apiPath)}/${method.toLowerCase()}/responses/${status}`;
  const ref = `${DOC_ID}${response}/content/application~1json/schema`;
  let validate = compiled.get(ref);
  if (!validate) {
    const schema = validator.getSchema(ref);
    if (!schema) throw new Error(`No OpenAPI response schema for ${method} ${apiPath} ${status}`);
    validate = schema;
    compiled.set(ref, validate);
  }
  const copy = { ...(body as Record<string, unknown>) };
  for (const field of check.newerFields ?? []) delete copy[field];
  if (validate(copy)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
  );
}

/** Jest-friendly assertion: throws with every mismatch listed. */
export function expectOpenApiResponse(
  apiPath: string,
  method: string,
  body: unknown,
  check: OpenApiCheck = {},
): void {
  const errors = openApiErrors(apiPath, method, body, check);
  if (errors.length) {
    throw new Error(`Response does not match OpenAPI ${method} ${apiPath}:\n${errors.join('\n')}`);
  }
}

/**
 * The keys of the `POST /register` response the reference attributes to each `fetch_event_types`
 * name ("Present if `realm` is present in `fetch_event_types`"). Keys whose description names
 * two types (`unread_msgs`) are listed under `a+b`.
 */
export function registerKeysByFetchType(): Map<string, Set<string>> {
  load();
  const schema = paths['/register'].post.responses?.['200'] as unknown as {
    content: { 'application/json': { schema: JsonSchemaNode } };
  };
  const properties: Record<string, JsonSchemaNode> = {};
  const collect = (node: JsonSchemaNode) => {
    for (const part of node.allOf ?? []) collect(part);
    Object.assign(properties, node.properties ?? {});
  };
  collect(schema.content['application/json'].schema);
  const byType = new Map<string, Set<string>>();
  for (const [key, node] of Object.entries(properties)) {
    const description = node.description ?? '';
    const both = /Present if `(\w+)` and `(\w+)` are both present in\s+`event_types`/.exec(
      description,
    );
    const types = both
      ? [`${both[1]}+${both[2]}`]
      : [...description.matchAll(/Present if `(\w+)` is present in `fetch_event_types`/g)].map(
          (m) => m[1],
        );
    for (const type of types) {
      const keys = byType.get(type) ?? new Set<string>();
      keys.add(key);
      byType.set(type, keys);
    }
  }
  return byType;
}

interface JsonSchemaNode {
  allOf?: JsonSchemaNode[];
  properties?: Record<string, JsonSchemaNode>;
  description?: string;
}
