import { plainFormatter, type EventFields } from '../formatter';

/** `realm_bot` events. */
export type RealmBotEvent =
  | { type: 'realm_bot'; op: 'add'; bot: object }
  | { type: 'realm_bot'; op: 'update'; bot: { user_id: number; [field: string]: unknown } }
  | { type: 'realm_bot'; op: 'delete'; bot: { user_id: number } };

export const realmBotEvent = (fields: EventFields<RealmBotEvent>): RealmBotEvent => ({
  ...fields,
  type: 'realm_bot',
});

export const realmBotFormatter = plainFormatter<RealmBotEvent>();
