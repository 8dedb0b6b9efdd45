import type { Stream, Subscription } from '../../../../generated/prisma/client';
import { formatChannels, type ChannelDict } from '../../channels/format-channel';
import {
  formatSubscriptions,
  subscriberIdsByRecipient,
} from '../../subscriptions/format-subscription';
import { showsSubscribersToOutsiders } from '../../permissions/channels';
import { checkAccess, Permission } from '../../permissions/access';
import { channelsForUser } from './channels';
import type { StateProvider } from './types';
import { at } from '../../../core/at';

/** `subscription`: subscribed, formerly subscribed, and never subscribed (but visible) channels. */
export const subscriptionState: StateProvider = {
  eventTypes: ['subscription'],
  async fetch({ ctx, user, params, capabilities }) {
    const { streams, subs } = await channelsForUser(ctx.db, user, capabilities.archived_channels);
    const subscribers =
      params.include_subscribers !== false
        ? await subscriberIdsByRecipient(
            ctx.db,
            streams.flatMap((s) => (s.recipientId === null ? [] : [s.recipientId])),
          )
        : undefined;
    const seen = await checkAccess(ctx.db, {
      auth: { user },
      permission: Permission.ChannelListUnsubscribed,
      ids: streams.map((s) => s.id),
      channels: streams,
    });
    const active: { sub: Subscription; stream: Stream }[] = [];
    const former: { sub: Subscription; stream: Stream }[] = [];
    const never: Stream[] = [];
    for (const stream of streams) {
      const sub = subs.get(stream.id);
      // A channel left that the user no longer sees is in no list (Zulip's
      // has_metadata_access_to_previously_subscribed_stream): unsubscribing sent its deletion.
      if (sub?.active) active.push({ sub, stream });
      else if (!seen.has(stream.id)) continue;
      else if (sub) former.push({ sub, stream });
      else never.push(stream);
    }
    // Subscribers of private channels the user never joined are not theirs to see.
    const neverSubscribed = (await formatChannels(ctx.db, never)).map(
      (entry, i): ChannelDict & { subscribers?: number[] } => {
        const stream = at(never, i);
        return subscribers && showsSubscribersToOutsiders(stream)
          ? { ...entry, subscribers: subscribers.get(stream.recipientId ?? -1) ?? [] }
          : entry;
      },
    );
    return {
      subscriptions: await formatSubscriptions(ctx.db, active, subscribers),
      unsubscribed: await formatSubscriptions(ctx.db, former, subscribers),
      never_subscribed: neverSubscribed,
    };
  },
};
