import { accessibleUserIds } from '../../permissions/users';
import type { StateProvider } from './types';

/** Seconds of inactivity after which Zulip shows a user as offline/idle. */
const OFFLINE_THRESHOLD_SECONDS = 140;
const PING_INTERVAL_SECONDS = 60;
const DEFAULT_HISTORY_DAYS = 14;

const seconds = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

/**
 * `presence`: the modern form (keyed by user id, active/idle timestamps) for slim_presence
 * clients, otherwise the legacy form keyed by email.
 */
export const presenceState: StateProvider = {
  eventTypes: ['presence'],
  async fetch({ ctx, realm, user, params }) {
    const now = Date.now();
    const days = params.presence_history_limit_days ?? DEFAULT_HISTORY_DAYS;
    const since = new Date(now - days * 86400_000);
    const [rows, sequence, accessible] = await Promise.all([
      realm.presenceDisabled
        ? []
        : ctx.db.userPresence.findMany({
            where: {
              realmId: realm.id,
              lastConnectedTime: { gte: since },
              user: { isActive: true, presenceEnabled: true, isBot: false },
            },
            include: { user: { select: { email: true } } },
          }),
      ctx.db.presenceSequence.findUnique({ where: { realmId: realm.id } }),
      accessibleUserIds(ctx.db, user),
    ]);
    const presences: Record<string, unknown> = {};
    for (const p of rows) {
      // A guest restricted by can_access_all_users_group sees only the users they can access.
      if (accessible && !accessible.has(p.userId)) continue;
      const active = seconds(p.lastActiveTime);
      const connected = seconds(p.lastConnectedTime);
      if (params.slim_presence) {
        presences[String(p.userId)] = { active_timestamp: active, idle_timestamp: connected };
        continue;
      }
      const isActive =
        active !== null && connected !== null && active + OFFLINE_THRESHOLD_SECONDS >= connected;
      const status = isActive ? 'active' : 'idle';
      const timestamp = (isActive ? active : connected) ?? 0;
      presences[p.user.email] = {
        aggregated: { client: 'website', status, timestamp },
        website: { client: 'website', status, timestamp, pushable: false },
      };
    }
    return {
      presences,
      server_timestamp: now / 1000,
      presence_last_update_id: Number(sequence?.lastUpdateId ?? -1),
      server_presence_ping_interval_seconds: PING_INTERVAL_SECONDS,
      server_presence_offline_threshold_seconds: OFFLINE_THRESHOLD_SECONDS,
    };
  },
};
