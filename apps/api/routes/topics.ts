import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { channelTopics } from '../../../libs/domain/messages/channel-topics';
import { authed } from '../../../libs/http/route';

export function topicRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/users/me/:stream_id/topics',
    authed(
      ctx,
      { stream_id: P.int().required(), allow_empty_topic_name: P.bool().default(false) },
      async ({ user, realm, params }) =>
        channelTopics(ctx.db, {
          user,
          realm,
          streamId: params.stream_id,
          allowEmptyTopicName: params.allow_empty_topic_name,
        }),
    ),
  );
}
