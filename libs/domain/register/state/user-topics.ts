import { mutedTopicsOf } from '../../user-topics/muted-topics';
import { wantedTypes, wants, type StateProvider } from './types';

/**
 * `user_topics`, and the legacy `muted_topics`, which Zulip leaves out for a client that asks for
 * `user_topic` by name (it gets both only from servers older than feature level 134).
 */
export const userTopicsState: StateProvider = {
  eventTypes: ['user_topic', 'muted_topics'],
  async fetch({ ctx, user, params }) {
    const rows = await ctx.db.userTopic.findMany({
      where: { userId: user.id },
      orderBy: { id: 'asc' },
    });
    const out: Record<string, unknown> = {};
    if (wants(params, 'user_topic')) {
      out.user_topics = rows.map((r) => ({
        stream_id: r.streamId,
        topic_name: r.topicName,
        last_updated: Math.floor(r.lastUpdated.getTime() / 1000),
        visibility_policy: r.visibilityPolicy,
      }));
    }
    if (wants(params, 'muted_topics') && (wantedTypes(params) === null || !out.user_topics)) {
      out.muted_topics = await mutedTopicsOf(ctx.db, user.id);
    }
    return out;
  },
};
