import { formatChannels } from '../../channels/format-channel';
import { canSeeUnsubscribed } from '../../permissions/channels';
import { channelsForUser } from './channels';
import type { StateProvider } from './types';

/** `stream`: every channel the user can access (administrators: every channel). */
export const streamState: StateProvider = {
  eventTypes: ['stream'],
  async fetch({ ctx, user, capabilities }) {
    const { streams, subs } = await channelsForUser(ctx.db, user, capabilities.archived_channels);
    const visible = streams.filter((s) => subs.get(s.id)?.active || canSeeUnsubscribed(user, s));
    return { streams: await formatChannels(ctx.db, visible) };
  },
};
