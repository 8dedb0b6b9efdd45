import {
  canSeeUnsubscribed,
  channelsForUser,
  formatChannel,
  formatSubscription,
  subscribersOf,
} from './channels';
import type { StateProvider } from './types';

/** `subscription`: subscribed, formerly subscribed, and never subscribed (but visible) channels. */
export const subscriptionState: StateProvider = {
  eventTypes: ['subscription'],
  async fetch({ ctx, user, params, capabilities }) {
    const { streams, subs } = await channelsForUser(ctx.db, user, capabilities.archived_channels);
    const withSubscribers = params.include_subscribers !== false;
    const subscribers = withSubscribers
      ? await subscribersOf(
          ctx.db,
          streams.flatMap((s) => (s.recipientId === null ? [] : [s.recipientId])),
        )
      : null;
    const addSubscribers = (entry: Record<string, unknown>, recipientId: number | null) => {
      if (subscribers) entry.subscribers = subscribers.get(recipientId ?? -1) ?? [];
      return entry;
    };
    const subscriptions: Record<string, unknown>[] = [];
    const unsubscribed: Record<string, unknown>[] = [];
    const neverSubscribed: Record<string, unknown>[] = [];
    for (const stream of streams) {
      const sub = subs.get(stream.id);
      if (sub?.active) {
        subscriptions.push(addSubscribers(formatSubscription(stream, sub), stream.recipientId));
      } else if (sub) {
        unsubscribed.push(addSubscribers(formatSubscription(stream, sub), stream.recipientId));
      } else if (canSeeUnsubscribed(user, stream)) {
        const entry = formatChannel(stream);
        neverSubscribed.push(stream.inviteOnly ? entry : addSubscribers(entry, stream.recipientId));
      }
    }
    return { subscriptions, unsubscribed, never_subscribed: neverSubscribed };
  },
};
