import type { LegacyClientPresence } from '../records';
import { plainFormatter, type EventFields } from '../formatter';

/** `presence` events. */
export interface PresenceEvent {
  type: 'presence';
  user_id: number;
  email: string;
  server_timestamp: number;
  /** By client name (`website`), in the legacy form. */
  presence: Record<string, LegacyClientPresence>;
}

export const presenceEvent = (fields: EventFields<PresenceEvent>): PresenceEvent => ({
  ...fields,
  type: 'presence',
});

export const presenceFormatter = plainFormatter<PresenceEvent>();
