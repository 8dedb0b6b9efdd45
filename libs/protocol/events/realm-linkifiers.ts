import { plainFormatter, type EventFields } from '../formatter';

/** `realm_linkifiers` events. */
export interface RealmLinkifiersEvent {
  type: 'realm_linkifiers';
  linkifiers: object[];
}

export const realmLinkifiersEvent = (
  fields: EventFields<RealmLinkifiersEvent>,
): RealmLinkifiersEvent => ({ ...fields, type: 'realm_linkifiers' });

export const realmLinkifiersFormatter = plainFormatter<RealmLinkifiersEvent>();
