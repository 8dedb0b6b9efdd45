import { formatChannels } from '../../channels/format-channel';
import { listDefaultChannels } from '../../channels/list-default-channels';
import { seesAllPublicChannels } from '../../permissions/channels';
import type { StateProvider } from './types';

/** `default_streams`: the channels new users join. Guests see none, as in Zulip. */
export const defaultChannelsState: StateProvider = {
  eventTypes: ['default_streams'],
  async fetch({ ctx, user, realm }) {
    if (!seesAllPublicChannels(user)) return { realm_default_streams: [] };
    return { realm_default_streams: await listDefaultChannels(ctx.db, realm) };
  },
};

/** `default_stream_groups`: named sets of channels offered at sign-up, by name, each sorted by name. */
export const defaultChannelGroupsState: StateProvider = {
  eventTypes: ['default_stream_groups'],
  async fetch({ ctx, user, realm }) {
    if (!seesAllPublicChannels(user)) return { realm_default_stream_groups: [] };
    const groups = await ctx.db.defaultStreamGroup.findMany({
      where: { realmId: realm.id },
      orderBy: { name: 'asc' },
      include: { streams: { include: { stream: true }, orderBy: { stream: { name: 'asc' } } } },
    });
    const out = [];
    for (const g of groups) {
      out.push({
        name: g.name,
        id: g.id,
        description: g.description,
        streams: await formatChannels(
          ctx.db,
          g.streams.map((s) => s.stream),
        ),
      });
    }
    return { realm_default_stream_groups: out };
  },
};
