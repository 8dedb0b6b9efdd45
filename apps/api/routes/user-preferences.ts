import type { Router } from 'express';
import Joi from 'joi';
import {
  addAlertWords,
  MAX_ALERT_WORD_LENGTH,
} from '../../../libs/domain/alert-words/add-alert-words';
import { listAlertWords } from '../../../libs/domain/alert-words/list-alert-words';
import { removeAlertWords } from '../../../libs/domain/alert-words/remove-alert-words';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { muteUser } from '../../../libs/domain/muted-users/mute-user';
import { unmuteUser } from '../../../libs/domain/muted-users/unmute-user';
import {
  setTopicVisibility,
  VISIBILITY_POLICIES,
} from '../../../libs/domain/user-topics/set-visibility';
import { updateMutedTopic } from '../../../libs/domain/user-topics/legacy-muted-topics';
import { MAX_TOPIC_LENGTH } from '../../../libs/domain/length-limits';
import { authed } from '../../../libs/http/route';

const words = P.array(P.string(Joi.string().allow('').max(MAX_ALERT_WORD_LENGTH))).required();
const mutedUserId = { muted_user_id: P.int().required() };
const topic = P.string(Joi.string().allow('').max(MAX_TOPIC_LENGTH)).required();

/** A user's own preferences about content: alert words, muted users, topic visibility. */
export function userPreferenceRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/users/me/alert_words',
    authed(ctx, {}, async ({ user }) => ({ alert_words: await listAlertWords(ctx.db, user.id) })),
  );
  router.post(
    '/users/me/alert_words',
    authed(ctx, { alert_words: words }, async ({ user, params }) => ({
      alert_words: await addAlertWords(ctx, user, params.alert_words),
    })),
  );
  router.delete(
    '/users/me/alert_words',
    authed(ctx, { alert_words: words }, async ({ user, params }) => ({
      alert_words: await removeAlertWords(ctx, user, params.alert_words),
    })),
  );
  router.post(
    '/users/me/muted_users/:muted_user_id',
    authed(ctx, mutedUserId, async ({ user, params }) => {
      await muteUser(ctx, user, params.muted_user_id);
    }),
  );
  router.delete(
    '/users/me/muted_users/:muted_user_id',
    authed(ctx, mutedUserId, async ({ user, params }) => {
      await unmuteUser(ctx, user, params.muted_user_id);
    }),
  );
  router.post(
    '/user_topics',
    authed(
      ctx,
      {
        stream_id: P.int().required(),
        topic,
        visibility_policy: P.int(
          Joi.number()
            .integer()
            .valid(...VISIBILITY_POLICIES),
        ).required(),
      },
      async ({ user, realm, params }) => {
        await setTopicVisibility(ctx, {
          user,
          realm,
          streamId: params.stream_id,
          topic: params.topic,
          visibilityPolicy: params.visibility_policy,
        });
      },
    ),
  );
  router.patch(
    '/users/me/subscriptions/muted_topics',
    authed(
      ctx,
      {
        stream_id: P.int(),
        stream: P.string(Joi.string()),
        topic,
        op: P.oneOf('add', 'remove').required(),
      },
      async ({ user, realm, params }) => {
        await updateMutedTopic(ctx, {
          user,
          realm,
          streamId: params.stream_id,
          streamName: params.stream,
          topic: params.topic,
          op: params.op,
        });
      },
    ),
  );
}
