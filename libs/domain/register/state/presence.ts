import { DEFAULT_HISTORY_LIMIT_DAYS, realmPresence } from '../../presence/get-presence';
import type { StateProvider } from './types';

/**
 * `presence`: the same data as `GET /realm/presence` (one query, one formatting rule), in the
 * modern form keyed by user ID for slim_presence clients, otherwise the legacy form keyed by email.
 * The ping interval and offline threshold are server settings, sent with `realm`.
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
    return { ...response };
  },
};
