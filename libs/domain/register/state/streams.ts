import { formatChannels } from '../../channels/format-channel';
import { checkAccess, Permission } from '../../permissions/access';
import { channelsForUser } from './channels';
import type { StateProvider } from './types';

/** `stream`: every channel the user can access (administrators: every channel). */
export const streamState: StateProvider = {
  eventTypes: ['stream'],
  async fetch({ ctx, user, capabilities }) {
    const { streams, subs } = await channelsForUser(ctx.db, user, capabilities.archived_channels);
    // The rows read are handed over: the entry point asks no query of its own.
    const seen = await checkAccess(ctx.db, {
      auth: { user },
      permission: Permission.ChannelListUnsubscribed,
      ids: streams.map((s) => s.id),
      channels: streams,
    });
    const visible = streams.filter((s) => subs.get(s.id)?.active || seen.has(s.id));
    return { streams: await formatChannels(ctx.db, visible) };
  },
};
