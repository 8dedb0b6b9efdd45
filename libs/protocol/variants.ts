import type { ClientEvent } from './event-catalogue';
import type { BotUpdate } from './events/realm-bot';
import type { RealmUserUpdate } from './events/realm-user';

/**
 * Every variant of every event a queue can deliver, derived from the typed catalogue: an event
 * type, `type:op` for types with ops, and `realm_user:update:<field>` / `realm_bot:update:<field>`
 * for the forms of those updates. The compiler checks the lists against the types, so a new
 * event type, op or update form that is not listed here does not compile; the verify_action
 * coverage test (test/verify-action/coverage.test.ts) requires a case for each.
 */

type Client = ClientEvent;
type OpOf<T extends Client['type']> =
  Extract<Client, { type: T }> extends infer E ? (E extends { op: infer O } ? O : never) : never;

/** The ops of each event type (empty: the type has none). */
export const EVENT_OPS = {
  alert_words: [],
  attachment: ['add', 'update', 'remove'],
  custom_profile_fields: [],
  default_streams: [],
  delete_message: [],
  drafts: ['add', 'update', 'remove'],
  heartbeat: [],
  invites_changed: [],
  message: [],
  muted_topics: [],
  muted_users: [],
  presence: [],
  reaction: ['add', 'remove'],
  realm: ['update', 'update_dict', 'deactivated'],
  realm_bot: ['add', 'update', 'delete'],
  realm_domains: ['add', 'change', 'remove'],
  realm_emoji: ['update'],
  realm_export: [],
  realm_linkifiers: [],
  realm_playgrounds: [],
  realm_user: ['add', 'update', 'remove'],
  realm_user_settings_defaults: ['update'],
  scheduled_messages: ['add', 'update', 'remove'],
  stream: ['create', 'delete', 'update'],
  subscription: ['add', 'remove', 'update', 'peer_add', 'peer_remove'],
  typing: ['start', 'stop'],
  update_display_settings: [],
  update_global_notifications: [],
  update_message: [],
  update_message_flags: ['add', 'remove'],
  user_group: [
    'add',
    'update',
    'add_members',
    'remove_members',
    'add_subgroups',
    'remove_subgroups',
    'remove',
  ],
  user_settings: ['update'],
  user_status: [],
  user_topic: [],
} as const satisfies { [T in Client['type']]: readonly OpOf<T>[] };

/** The field that tells each `realm_user` update form apart. */
export const REALM_USER_UPDATE_FIELDS = [
  'full_name',
  'avatar_url',
  'timezone',
  'bot_owner_id',
  'role',
  'is_billing_admin',
  'delivery_email',
  'custom_profile_field',
  'new_email',
  'is_active',
] as const satisfies readonly UpdateField<RealmUserUpdate>[];

/** The property each `realm_bot` update carries. */
export const REALM_BOT_UPDATE_FIELDS = [
  'full_name',
  'avatar_url',
  'api_key',
  'default_sending_stream',
  'default_events_register_stream',
  'default_all_public_streams',
  'owner_id',
  'services',
  'is_active',
] as const satisfies readonly UpdateField<BotUpdate>[];

type UpdateField<U> = U extends unknown ? Exclude<keyof U, 'user_id' | 'email'> : never;
/** Forms none of whose fields is listed: must be none. */
type Unlisted<U, L> = U extends unknown ? (Extract<keyof U, L> extends never ? U : never) : never;
type Missing<T extends Client['type']> = Exclude<OpOf<T>, (typeof EVENT_OPS)[T][number]>;
const complete: [
  { [T in Client['type']]: Missing<T> }[Client['type']],
  Unlisted<RealmUserUpdate, (typeof REALM_USER_UPDATE_FIELDS)[number]>,
  Unlisted<BotUpdate, (typeof REALM_BOT_UPDATE_FIELDS)[number]>,
] extends [never, never, never]
  ? true
  : false = true;

/** Every variant, as `variantOf` names them. */
export function allVariants(): string[] {
  if (!complete) return [];
  const out: string[] = [];
  for (const [type, ops] of Object.entries(EVENT_OPS) as [string, readonly string[]][]) {
    if (!ops.length) out.push(type);
    for (const op of ops) {
      if (type === 'realm_user' && op === 'update') {
        out.push(...REALM_USER_UPDATE_FIELDS.map((f) => `${type}:${op}:${f}`));
      } else if (type === 'realm_bot' && op === 'update') {
        out.push(...REALM_BOT_UPDATE_FIELDS.map((f) => `${type}:${op}:${f}`));
      } else out.push(`${type}:${op}`);
    }
  }
  return out;
}

/** The variant an event is an instance of. */
export function variantOf(event: Client): string {
  if (!('op' in event)) return event.type;
  if (event.type === 'realm_user' && event.op === 'update') {
    const field = REALM_USER_UPDATE_FIELDS.find((f) => f in event.person);
    return `realm_user:update:${field ?? '?'}`;
  }
  if (event.type === 'realm_bot' && event.op === 'update') {
    const field = REALM_BOT_UPDATE_FIELDS.find((f) => f in event.bot);
    return `realm_bot:update:${field ?? '?'}`;
  }
  return `${event.type}:${event.op}`;
}
