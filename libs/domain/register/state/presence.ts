import { OFFLINE_THRESHOLD_SECONDS } from '../../presence/format-presence';
import { DEFAULT_HISTORY_LIMIT_DAYS, realmPresence } from '../../presence/get-presence';
import type { StateProvider } from './types';

/** How often clients should report presence (Zulip's PRESENCE_PING_INTERVAL_SECS). */
const PING_INTERVAL_SECONDS = 60;

/**
 * `presence`: the same data as `GET /realm/presence` (one query, one formatting rule), in the
 * modern form keyed by user ID for slim_presence clients, otherwise the legacy form keyed by email.
 */
export const presenceState: StateProvider = {
  eventTypes: ['presence'],
  async fetch({ ctx, user, params }) {
    const response = await realmPresence(ctx.db, {
      viewer: user,
      lastUpdateId: null,
      historyLimitDays: params.presence_history_limit_days ?? DEFAULT_HISTORY_LIMIT_DAYS,
      now: new Date(),
      modern: params.slim_presence,
    });
    return {
      ...response,
      server_presence_ping_interval_seconds: PING_INTERVAL_SECONDS,
      server_presence_offline_threshold_seconds: OFFLINE_THRESHOLD_SECONDS,
    };
  },
};
