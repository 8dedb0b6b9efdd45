import { Role } from '../../users/roles';
import { channelsForUser, formatChannel } from './channels';
import type { StateProvider } from './types';

/** `stream`: every channel the user can access (administrators: every channel). */
export const streamState: StateProvider = {
  eventTypes: ['stream'],
  async fetch({ ctx, user, capabilities }) {
    const { streams, subs } = await channelsForUser(ctx.db, user, capabilities.archived_channels);
    const visible = streams.filter((s) => {
      if (subs.get(s.id)?.active) return true;
      if (user.role === Role.GUEST) return s.isWebPublic;
      return !s.inviteOnly || user.role <= Role.ADMINISTRATOR;
    });
    return { streams: visible.map(formatChannel) };
  },
};
