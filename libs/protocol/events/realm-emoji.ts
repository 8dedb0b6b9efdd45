import type { ApiRealmEmoji } from '../records';
import { plainFormatter, type EventFields } from '../formatter';

/** `realm_emoji` events. */
export interface RealmEmojiEvent {
  type: 'realm_emoji';
  op: 'update';
  realm_emoji: Record<string, ApiRealmEmoji>;
}

export const realmEmojiEvent = (fields: EventFields<RealmEmojiEvent>): RealmEmojiEvent => ({
  ...fields,
  type: 'realm_emoji',
});

export const realmEmojiFormatter = plainFormatter<RealmEmojiEvent>();
