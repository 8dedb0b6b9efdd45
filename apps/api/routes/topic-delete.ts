import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { deleteTopic } from '../../../libs/domain/messages/delete-topic';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

export function topicDeleteRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/streams/:stream_id/delete_topic',
    authed<{ stream_id: number; topic_name: string }>(
      ctx,
      {
        stream_id: P.int(Joi.number().integer().required()),
        topic_name: P.string(Joi.string().allow('').required()),
      },
      async ({ user, realm, params }) =>
        deleteTopic(ctx, {
          actor: user,
          realm,
          streamId: params.stream_id,
          topicName: params.topic_name,
        }),
    ),
  );
}
