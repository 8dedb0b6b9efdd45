import type { ApiLinkifier } from '../records';
import { accepts, defineFormatter, type EventFields } from '../formatter';

/** `realm_linkifiers` events. */
export interface RealmLinkifiersEvent {
  type: 'realm_linkifiers';
  realm_linkifiers: ApiLinkifier[];
}

export const realmLinkifiersEvent = (
  fields: EventFields<RealmLinkifiersEvent>,
): RealmLinkifiersEvent => ({ ...fields, type: 'realm_linkifiers' });

export const realmLinkifiersFormatter = defineFormatter({
  reads: ['eventTypes', 'capabilities'],
  owner: () => [],
  format(event: RealmLinkifiersEvent, settings): RealmLinkifiersEvent[] {
    // RFC 6570 templates are not the URL format strings older clients read (FL 176).
    if (!settings.capabilities.linkifier_url_template) return [];
    return accepts(settings, 'realm_linkifiers') ? [event] : [];
  },
});
