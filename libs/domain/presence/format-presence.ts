/** Presence rows as the API shows them, in the modern (keyed by user ID) and legacy (by email) formats. */

import type { LegacyClientPresence, LegacyPresence, ModernPresence } from '../../protocol/records';

export interface PresenceRow {
  userId: number;
  email: string;
  dateJoined: Date;
  lastActiveTime: Date | null;
  lastConnectedTime: Date | null;
}

export type { LegacyClientPresence, LegacyPresence, ModernPresence };

/** A user counts as offline when the last connection is older than this. */
export const OFFLINE_THRESHOLD_SECONDS = 140;
/** An active timestamp this close to the last connection reads as "active" in the legacy format. */
const LEGACY_ACTIVITY_OFFSET_SECONDS = 70;

export const unixSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

function times(row: PresenceRow): { active: number; connected: number } {
  const active = unixSeconds(row.lastActiveTime ?? row.dateJoined);
  const connected = unixSeconds(row.lastConnectedTime ?? row.lastActiveTime ?? row.dateJoined);
  return { active, connected };
}

export function modernPresence(row: PresenceRow): ModernPresence {
  const { active, connected } = times(row);
  return { active_timestamp: active, idle_timestamp: connected };
}

export function legacyClientPresence(row: PresenceRow): LegacyClientPresence {
  const { active, connected } = times(row);
  return active + LEGACY_ACTIVITY_OFFSET_SECONDS >= connected
    ? { client: 'website', status: 'active', timestamp: active, pushable: false }
    : { client: 'website', status: 'idle', timestamp: connected, pushable: false };
}

export function legacyPresence(row: PresenceRow): LegacyPresence {
  const website = legacyClientPresence(row);
  return {
    website,
    aggregated: { client: website.client, status: website.status, timestamp: website.timestamp },
  };
}
