import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { deleteTopic } from '../../../libs/domain/messages/delete-topic';
import { authed } from '../../../libs/http/route';

export function topicDeleteRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/streams/:stream_id/delete_topic',
    authed(
      ctx,
      { stream_id: P.int().required(), topic_name: P.string().required() },
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
