import type { JsonValue } from '../records';
import { plainFormatter, type EventFields } from '../formatter';

/** `realm` events. */
export type RealmEvent =
  | { type: 'realm'; op: 'update'; property: string; value: JsonValue }
  | { type: 'realm'; op: 'update_dict'; property: 'default'; data: Record<string, JsonValue> }
  | { type: 'realm'; op: 'deactivated'; realm_id: number };

export const realmEvent = (fields: EventFields<RealmEvent>): RealmEvent => ({
  ...fields,
  type: 'realm',
});

export const realmFormatter = plainFormatter<RealmEvent>();
