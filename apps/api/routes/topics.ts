import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { channelTopics } from '../../../libs/domain/messages/channel-topics';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

interface TopicsParams {
  stream_id: number;
  allow_empty_topic_name: boolean;
}

export function topicRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/users/me/:stream_id/topics',
    authed<TopicsParams>(
      ctx,
      {
        stream_id: P.int(Joi.number().integer().required()),
        allow_empty_topic_name: P.bool(Joi.boolean().default(false)),
      },
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
