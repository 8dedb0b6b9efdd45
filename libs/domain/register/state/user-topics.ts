import type { StateProvider } from './types';

/** Visibility policy 1 is "muted"; the legacy `muted_topics` list carries only those. */
const MUTED = 1;

export const userTopicsState: StateProvider = {
  eventTypes: ['user_topic', 'muted_topics'],
  async fetch({ ctx, user }) {
    const rows = await ctx.db.userTopic.findMany({
      where: { userId: user.id },
      orderBy: { id: 'asc' },
      include: { stream: { select: { name: true } } },
    });
    return {
      user_topics: rows.map((r) => ({
        stream_id: r.streamId,
        topic_name: r.topicName,
        last_updated: Math.floor(r.lastUpdated.getTime() / 1000),
        visibility_policy: r.visibilityPolicy,
      })),
      muted_topics: rows
        .filter((r) => r.visibilityPolicy === MUTED)
        .map((r) => [r.stream.name, r.topicName, Math.floor(r.lastUpdated.getTime() / 1000)]),
    };
  },
};
