import { plainFormatter, type EventFields } from '../formatter';
import type { ApiBotRecord } from '../records';

/** The bot properties a `realm_bot` update carries, one at a time (Zulip's documented forms). */
export type BotUpdatableField =
  | 'full_name'
  | 'avatar_url'
  | 'api_key'
  | 'default_sending_stream'
  | 'default_events_register_stream'
  | 'default_all_public_streams'
  | 'owner_id'
  | 'services'
  | 'is_active';

/** `{ user_id }` and one changed property, typed as the bot's record has it. */
export type BotUpdate = {
  [K in BotUpdatableField]: { user_id: number } & Pick<ApiBotRecord, K>;
}[BotUpdatableField];

/** `realm_bot` events. */
export type RealmBotEvent =
  | { type: 'realm_bot'; op: 'add'; bot: ApiBotRecord }
  | { type: 'realm_bot'; op: 'update'; bot: BotUpdate }
  | { type: 'realm_bot'; op: 'delete'; bot: { user_id: number } };

/** The update of one property: the bot's id and that property as its record has it. */
export function botUpdate<K extends BotUpdatableField>(
  userId: number,
  field: K,
  record: Pick<ApiBotRecord, K>,
): { user_id: number } & Pick<ApiBotRecord, K> {
  // A computed key types as an index signature; the object has exactly `field` and `user_id`.
  const change = { [field]: record[field] } as Pick<ApiBotRecord, K>;
  return { user_id: userId, ...change };
}

export const realmBotEvent = (fields: EventFields<RealmBotEvent>): RealmBotEvent => ({
  ...fields,
  type: 'realm_bot',
});

export const realmBotFormatter = plainFormatter<RealmBotEvent>();
