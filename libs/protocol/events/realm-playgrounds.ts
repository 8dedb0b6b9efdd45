import type { ApiPlayground } from '../records';
import { plainFormatter, type EventFields } from '../formatter';

/** `realm_playgrounds` events. */
export interface RealmPlaygroundsEvent {
  type: 'realm_playgrounds';
  realm_playgrounds: ApiPlayground[];
}

export const realmPlaygroundsEvent = (
  fields: EventFields<RealmPlaygroundsEvent>,
): RealmPlaygroundsEvent => ({ ...fields, type: 'realm_playgrounds' });

export const realmPlaygroundsFormatter = plainFormatter<RealmPlaygroundsEvent>();
