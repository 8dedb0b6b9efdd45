import Ajv, { type ValidateFunction } from 'ajv';
import { appendFileSync, readFileSync } from 'node:fs';
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

/** Channel fields added after feature level 247 (spec 2.2). */
export const NEWER_CHANNEL_FIELDS = [
  'is_archived',
  'creator_id',
  'is_recently_active',
  'can_add_subscribers_group',
  'can_administer_channel_group',
  'can_send_message_group',
  'can_subscribe_group',
];

/** User-group fields added after feature level 247 (FL 283-324: group settings; FL 290-292). */
export const NEWER_GROUP_FIELDS = [
  'creator_id',
  'date_created',
  'deactivated',
  'can_add_members_group',
  'can_join_group',
  'can_leave_group',
  'can_manage_group',
  'can_remove_members_group',
];

/** One event schema of `GET /events` (a `oneOf` branch): its `type`, its `op` if it has one. */
export interface EventVariant {
  type: string;
  op?: string;
  deprecated: boolean;
  index: number;
}

interface EventSchemaNode extends JsonSchemaNode {
  enum?: string[];
  deprecated?: boolean;
}

const EVENT_ITEMS =
  '/paths/~1events/get/responses/200/content/application~1json/schema/allOf/1/properties/events/items/oneOf';
let variants: EventVariant[] | null = null;

/** Every event schema the reference documents, in its order. */
export function eventVariants(): EventVariant[] {
  if (variants) return variants;
  load();
  const schema = paths['/events'].get.responses?.['200'] as unknown as {
    content: { 'application/json': { schema: { allOf: JsonSchemaNode[] } } };
  };
  const events = schema.content['application/json'].schema.allOf[1].properties?.events as {
    items: { oneOf: EventSchemaNode[] };
  };
  const enumOf = (node: EventSchemaNode | undefined): string[] =>
    node?.enum ?? (node?.allOf ?? []).flatMap((part) => enumOf(part as EventSchemaNode));
  const propertyOf = (node: EventSchemaNode, name: string): EventSchemaNode | undefined =>
    (node.properties?.[name] as EventSchemaNode | undefined) ??
    (node.allOf ?? []).map((part) => propertyOf(part, name)).find(Boolean);
  variants = events.items.oneOf.flatMap((node, index) =>
    enumOf(propertyOf(node, 'type')).flatMap((type) => {
      const ops = enumOf(propertyOf(node, 'op'));
      const deprecated = node.deprecated === true;
      return ops.length
        ? ops.map((op) => ({ type, op, deprecated, index }))
        : [{ type, deprecated, index }];
    }),
  );
  return variants;
}

/** `type` or `type:op`: how event coverage is counted. */
export const eventVariantName = (event: { type: string }): string => {
  const op = eventOp(event);
  return op === undefined ? event.type : `${event.type}:${op}`;
};

const eventOp = (event: { type: string }): string | undefined => {
  const op = (event as { op?: unknown }).op;
  return typeof op === 'string' ? op : undefined;
};

/**
 * Fields of events added after feature level 247, by event variant (`type` or `type:op`), as the
 * spec describes them; removed before the check, like `newerFields` of responses. A path names a
 * field of an object the event nests (`message.content_type`, `subscriptions[].is_archived`).
 */
const NEWER_EVENT_FIELDS: Record<string, string[]> = {
  'subscription:add': NEWER_CHANNEL_FIELDS.map((field) => `subscriptions[].${field}`),
  // Zulip FL 378: a channel restored from the archive is announced as created, so marked.
  'stream:create': [
    ...NEWER_CHANNEL_FIELDS.map((field) => `streams[].${field}`),
    'for_unarchiving',
  ],
  // Spec 2.2: default channels are channel records, weekly traffic included.
  default_streams: [...NEWER_CHANNEL_FIELDS, 'stream_weekly_traffic'].map(
    (field) => `default_streams[].${field}`,
  ),
  // Spec 4 (user groups): the group-setting values of FL 283-324; creator, creation date and
  // deactivation came with Zulip's FL 290-292.
  'user_group:add': NEWER_GROUP_FIELDS.map((field) => `group.${field}`),
  'user_group:update': NEWER_GROUP_FIELDS.filter(
    (field) => field !== 'creator_id' && field !== 'date_created',
  ).map((field) => `data.${field}`),
  // Zulip FL 296, as `GET /realm/profile_fields` returns it.
  custom_profile_fields: ['fields[].editable_by_user'],
  'stream:delete': NEWER_CHANNEL_FIELDS.map((field) => `streams[].${field}`),
  // Zulip FL 270.
  'realm:update_dict': ['direct_message_initiator_group', 'direct_message_permission_group'].map(
    (field) => `data.${field}`,
  ),
};

const isGroupSettingValue = (value: unknown): boolean =>
  typeof value === 'number' ||
  (typeof value === 'object' &&
    value !== null &&
    Object.keys(value).sort().join() === 'direct_members,direct_subgroups');

/**
 * Values the spec allows where the reference's event schema does not, by variant and field; such
 * a value is removed before the check (the schemas require none of these fields). Spec 2.2: a
 * channel's `message_retention_days` is null when it follows the organization's setting, and its
 * `can_*_group` settings are group-setting values (an object since FL 320).
 */
const SPEC_EVENT_VALUES: Record<string, Record<string, (value: unknown) => boolean>> = {
  'stream:update': { value: (value) => value === null || isGroupSettingValue(value) },
};

function withoutNewerFields(event: Record<string, unknown>): Record<string, unknown> {
  const variant = eventVariantName(event as { type: string });
  const copy = structuredClone(event);
  for (const field of NEWER_EVENT_FIELDS[variant] ?? []) removePath(copy, field.split('.'));
  for (const [field, allowed] of Object.entries(SPEC_EVENT_VALUES[variant] ?? {})) {
    if (field in copy && allowed(copy[field])) delete copy[field];
  }
  return copy;
}

function removePath(node: unknown, path: string[]): void {
  if (!node || typeof node !== 'object') return;
  const [head, ...rest] = path;
  const record = node as Record<string, unknown>;
  if (head.endsWith('[]')) {
    const list = record[head.slice(0, -2)];
    if (Array.isArray(list)) for (const item of list) removePath(item, rest);
  } else if (rest.length === 0) {
    delete record[head];
  } else {
    removePath(record[head], rest);
  }
}

/**
 * What is wrong with one event as `GET /events` returns it (`id` optional), measured against the
 * reference's schemas for its `type` and `op`: none if one of them accepts it. Zulip checks every
 * event its tests produce the same way (`zerver/lib/event_schema.py`).
 */
export function eventSchemaErrors(event: { type: string }): string[] {
  const validator = load();
  const candidates = eventVariants().filter(
    (v) => v.type === event.type && (v.op === undefined || v.op === eventOp(event)),
  );
  if (!candidates.length) return [`no OpenAPI event schema for ${eventVariantName(event)}`];
  recordEventCoverage(event);
  const documented = { id: 0, ...withoutNewerFields(event as Record<string, unknown>) };
  let best: string[] | null = null;
  for (const { index } of candidates) {
    const ref = `${DOC_ID}#${EVENT_ITEMS}/${index}`;
    let validate = compiled.get(ref);
    if (!validate) {
      validate = validator.getSchema(ref);
      if (!validate) throw new Error(`No OpenAPI event schema at ${ref}`);
      compiled.set(ref, validate);
    }
    if (validate(documented)) return [];
    const errors = (validate.errors ?? []).map(
      (e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
    );
    if (!best || errors.length < best.length) best = errors;
  }
  return best ?? [];
}

/** Throws with every mismatch of every event that does not match its schema. */
export function expectOpenApiEvents(events: readonly { type: string }[]): void {
  const failures = events.flatMap((event) => {
    const errors = eventSchemaErrors(event);
    return errors.length ? [`${JSON.stringify(event)}:\n  ${errors.join('\n  ')}`] : [];
  });
  if (failures.length) {
    throw new Error(`Events do not match the OpenAPI event schemas:\n${failures.join('\n')}`);
  }
}

/**
 * With EVENT_SCHEMA_COVERAGE set to a file, each checked event's variant is appended to it, so a
 * run of many test files can count the variants it covered (docs/architecture.md).
 */
function recordEventCoverage(event: { type: string }): void {
  const file = process.env.EVENT_SCHEMA_COVERAGE;
  if (file) appendFileSync(file, `${eventVariantName(event)}\n`);
}
