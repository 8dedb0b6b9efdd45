import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { sendMessage } from '../../../libs/domain/messages/send-message';
import { sendingClientName } from '../../../libs/domain/messages/sending-client';
import { getMessage } from '../../../libs/domain/messages/get-message';
import { anchorParam, getMessages } from '../../../libs/domain/messages/get-messages';
import { matchesNarrow } from '../../../libs/domain/messages/matches-narrow';
import { narrowParam } from '../../../libs/domain/messages/narrow';
import {
  markAllAsRead,
  markChannelAsRead,
  markTopicAsRead,
} from '../../../libs/domain/messages/mark-read';
import { updateMessageFlags } from '../../../libs/domain/messages/update-flags';
import { updateFlagsForNarrow } from '../../../libs/domain/messages/update-flags-narrow';
import { deleteMessage } from '../../../libs/domain/messages/delete-message';
import { editMessage } from '../../../libs/domain/messages/edit-message';
import { PROPAGATE_MODES } from '../../../libs/domain/messages/edit-request';
import { messageHistory } from '../../../libs/domain/messages/message-history';
import { renderMessage } from '../../../libs/domain/messages/render-message';
import { CHANNEL_TYPES, DIRECT_TYPES } from '../../../libs/domain/messages/types';
import { incompatibleParameters, missingArgument } from '../../../libs/core/errors';
import { readWith } from '../../../libs/db/read-replicas';
import { authed, authedLeavingPrincipals } from '../../../libs/http/route';

const sendSpec = {
  type: P.oneOf(...CHANNEL_TYPES, ...DIRECT_TYPES).required(),
  to: P.jsonOrText(
    P.alternatives(P.int(), P.string(), P.array([P.int(), P.string(Joi.string())])),
  ).required(),
  topic: P.string(),
  subject: P.string(),
  content: P.string().required(),
  local_id: P.string(),
  queue_id: P.string(),
  read_by_sender: P.bool(),
  client: P.string(),
};

const getSpec = {
  anchor: anchorParam.messages({
    'alternatives.match': 'Invalid anchor',
    'alternatives.types': 'Invalid anchor',
  }),
  // FL 300: a list of IDs instead of a window; num_before and num_after default to 0 since.
  message_ids: P.array(P.int(Joi.number().integer().min(0))),
  use_first_unread_anchor: P.bool().default(false),
  num_before: P.int(Joi.number().integer().min(0)).default(0),
  num_after: P.int(Joi.number().integer().min(0)).default(0),
  include_anchor: P.bool().default(true),
  narrow: narrowParam.default([]),
  apply_markdown: P.bool().default(true),
  client_gravatar: P.bool().default(true),
  allow_empty_topic_name: P.bool().default(false),
};

/** What Zulip names when `message_ids` comes with a window (its order). */
const MESSAGE_IDS_EXCLUDES = [
  'num_before',
  'num_after',
  'anchor',
  'message_ids',
  'include_anchor',
  'use_first_unread_anchor',
];

const messageIdSpec = { message_id: P.int().required() };

export function messageRoutes(router: Router, ctx: AppContext): void {
  messageEditRoutes(router, ctx);
  messageFlagRoutes(router, ctx);
  messageReadRoutes(router, ctx);
  messageLookupRoutes(router, ctx);
  messageSendRoute(router, ctx);
}

/** Editing and deleting one message, and its edit history. */
function messageEditRoutes(router: Router, ctx: AppContext): void {
  router.patch(
    '/messages/:message_id',
    authed(
      ctx,
      {
        ...messageIdSpec,
        content: P.string(),
        topic: P.string(),
        subject: P.string(),
        stream_id: P.int(),
        propagate_mode: P.oneOf(...PROPAGATE_MODES).default('change_one'),
        send_notification_to_old_thread: P.bool().default(false),
        send_notification_to_new_thread: P.bool().default(true),
      },
      async ({ user, realm, params }) => {
        const { detachedUploads } = await editMessage(ctx, {
          user,
          realm,
          messageId: params.message_id,
          content: params.content,
          topic: params.topic ?? params.subject,
          streamId: params.stream_id,
          propagateMode: params.propagate_mode,
          sendNotificationToOldThread: params.send_notification_to_old_thread,
          sendNotificationToNewThread: params.send_notification_to_new_thread,
        });
        // FL 285: the editor's files no message links any more, so clients can offer to delete them.
        return { detached_uploads: detachedUploads };
      },
    ),
  );
  router.delete(
    '/messages/:message_id',
    authed(ctx, messageIdSpec, async ({ user, realm, params }) => {
      await deleteMessage(ctx, { user, realm, messageId: params.message_id });
    }),
  );
  router.get(
    '/messages/:message_id/history',
    authed(ctx, messageIdSpec, async ({ user, realm, params }) => ({
      ...(await messageHistory(ctx.db, { user, realm, messageId: params.message_id })),
    })),
  );
}

/** Flags and read marks. */
function messageFlagRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/messages/flags',
    authed(
      ctx,
      {
        messages: P.array(P.int()).required(),
        op: P.string(Joi.string()).required(),
        flag: P.string(Joi.string()).required(),
      },
      async ({ user, realm, params }) => ({
        ...(await updateMessageFlags(ctx, { user, realm, ...params })),
      }),
    ),
  );
  router.post(
    '/messages/flags/narrow',
    authed(
      ctx,
      {
        anchor: anchorParam.required(),
        include_anchor: P.bool().default(true),
        num_before: P.int(Joi.number().integer().min(0)).required(),
        num_after: P.int(Joi.number().integer().min(0)).required(),
        narrow: narrowParam.required(),
        op: P.string(Joi.string()).required(),
        flag: P.string(Joi.string()).required(),
      },
      async ({ user, realm, params }) => ({
        ...(await updateFlagsForNarrow(ctx, {
          user,
          realm,
          anchor: params.anchor,
          includeAnchor: params.include_anchor,
          numBefore: params.num_before,
          numAfter: params.num_after,
          narrow: params.narrow,
          op: params.op,
          flag: params.flag,
        })),
      }),
    ),
  );
  router.post(
    '/mark_all_as_read',
    authed(ctx, {}, async ({ user, realm }) => ({ ...(await markAllAsRead(ctx, user, realm)) })),
  );
  router.post(
    '/mark_stream_as_read',
    authed(ctx, { stream_id: P.int().required() }, async ({ user, realm, params }) =>
      markChannelAsRead(ctx, user, realm, params.stream_id),
    ),
  );
  router.post(
    '/mark_topic_as_read',
    authed(
      ctx,
      { stream_id: P.int().required(), topic_name: P.string().required() },
      async ({ user, realm, params }) =>
        markTopicAsRead(ctx, {
          user,
          realm,
          streamId: params.stream_id,
          topicName: params.topic_name,
        }),
    ),
  );
}

/** Reading messages: by narrow (a window around an anchor) or by IDs. */
function messageReadRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/messages',
    authed(ctx, getSpec, async ({ user, realm, params }) => {
      const common = {
        user,
        realm,
        narrow: params.narrow,
        applyMarkdown: params.apply_markdown,
        clientGravatar: params.client_gravatar,
        allowEmptyTopicName: params.allow_empty_topic_name,
      };
      const messageIds = params.message_ids;
      if (messageIds !== undefined) {
        const windowed =
          params.num_before > 0 ||
          params.num_after > 0 ||
          params.anchor !== undefined ||
          params.use_first_unread_anchor;
        if (windowed) throw incompatibleParameters(MESSAGE_IDS_EXCLUDES);
        return {
          ...(await readWith(ctx, user.id, (db) => getMessages(db, { ...common, messageIds }))),
        };
      }
      let anchor = params.anchor;
      if (params.use_first_unread_anchor) anchor = 'first_unread';
      if (anchor === undefined) throw missingArgument('anchor');
      return {
        ...(await readWith(ctx, user.id, (db) =>
          getMessages(db, {
            ...common,
            anchor,
            numBefore: params.num_before,
            numAfter: params.num_after,
            includeAnchor: params.include_anchor,
          }),
        )),
      };
    }),
  );
}

/** Whether messages match a narrow, one message by ID, and rendering a draft. */
function messageLookupRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/messages/matches_narrow',
    authed(
      ctx,
      { msg_ids: P.array(P.int()).required(), narrow: narrowParam.required() },
      async ({ user, realm, params }) => ({
        messages: await matchesNarrow(ctx.db, {
          user,
          realm,
          messageIds: params.msg_ids,
          narrow: params.narrow,
        }),
      }),
    ),
  );
  router.post(
    '/messages/render',
    authed(ctx, { content: P.string().required() }, async ({ realm, params }) =>
      renderMessage(ctx, realm, params.content),
    ),
  );
  router.get(
    '/messages/:message_id',
    authed(
      ctx,
      {
        ...messageIdSpec,
        apply_markdown: P.bool().default(true),
        allow_empty_topic_name: P.bool().default(false),
      },
      async ({ user, realm, params }) => ({
        ...(await getMessage(ctx.db, {
          user,
          realm,
          messageId: params.message_id,
          applyMarkdown: params.apply_markdown,
          allowEmptyTopicName: params.allow_empty_topic_name,
        })),
      }),
    ),
  );
}

/** Sending a message. */
function messageSendRoute(router: Router, ctx: AppContext): void {
  router.post(
    '/messages',
    authedLeavingPrincipals(ctx, sendSpec, async ({ user, realm, params, req }) =>
      sendMessage(ctx, {
        sender: user,
        realm,
        type: params.type,
        to: params.to,
        topic: params.topic ?? params.subject,
        content: params.content,
        clientName: sendingClientName(req.headers['user-agent'], params.client),
        readBySender: params.read_by_sender,
        localId: params.local_id,
        queueId: params.queue_id,
      }),
    ),
  );
}
