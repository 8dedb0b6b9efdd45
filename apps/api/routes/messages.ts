import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { sendMessage, type SendType } from '../../../libs/domain/messages/send-message';
import { sendingClientName } from '../../../libs/domain/messages/sending-client';
import type { ChannelTarget } from '../../../libs/domain/messages/addressees';
import { getMessage } from '../../../libs/domain/messages/get-message';
import { getMessages, type Anchor } from '../../../libs/domain/messages/get-messages';
import { matchesNarrow } from '../../../libs/domain/messages/matches-narrow';
import {
  MAX_NARROW_OPERAND_IDS,
  MAX_NARROW_OPERAND_LENGTH,
  MAX_NARROW_TERMS,
  type RawNarrow,
} from '../../../libs/domain/messages/narrow';
import {
  markAllAsRead,
  markChannelAsRead,
  markTopicAsRead,
} from '../../../libs/domain/messages/mark-read';
import { updateMessageFlags } from '../../../libs/domain/messages/update-flags';
import { updateFlagsForNarrow } from '../../../libs/domain/messages/update-flags-narrow';
import { deleteMessage } from '../../../libs/domain/messages/delete-message';
import { editMessage, type PropagateMode } from '../../../libs/domain/messages/edit-message';
import { messageHistory } from '../../../libs/domain/messages/message-history';
import { renderMessage } from '../../../libs/domain/messages/render-message';
import { incompatibleParameters, missingArgument } from '../../../libs/core/errors';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

interface SendParams {
  type: SendType;
  to: ChannelTarget;
  topic?: string;
  subject?: string;
  content: string;
  local_id?: string;
  queue_id?: string;
  read_by_sender?: boolean;
  client?: string;
}

const target = Joi.alternatives(
  Joi.number().integer(),
  Joi.string().allow(''),
  Joi.array().items(Joi.number().integer(), Joi.string()),
).required();

const sendSpec = {
  type: P.string(Joi.string().valid('stream', 'channel', 'private', 'direct').required()),
  to: P.jsonOrText(target),
  topic: P.string(),
  subject: P.string(),
  content: P.string(Joi.string().allow('').required()),
  local_id: P.string(),
  queue_id: P.string(),
  read_by_sender: P.bool(),
  client: P.string(),
};

interface GetMessagesParams {
  anchor?: Anchor;
  message_ids?: number[];
  use_first_unread_anchor: boolean;
  num_before: number;
  num_after: number;
  include_anchor: boolean;
  narrow: RawNarrow;
  apply_markdown: boolean;
  client_gravatar: boolean;
  allow_empty_topic_name: boolean;
}

// Bounded so that no narrow, however hostile, makes a query with thousands of terms or a
// full-text search of a whole book.
const narrowText = Joi.string().allow('').max(MAX_NARROW_OPERAND_LENGTH);
const narrowSchema = Joi.array()
  .items(
    Joi.alternatives(
      Joi.object({
        operator: narrowText.required(),
        operand: Joi.alternatives(
          narrowText,
          Joi.number().integer(),
          Joi.array().items(Joi.number().integer()).max(MAX_NARROW_OPERAND_IDS),
        ).required(),
        negated: Joi.boolean(),
      }),
      Joi.array().items(narrowText).length(2),
    ),
  )
  .max(MAX_NARROW_TERMS)
  .default([]);

const getSpec = {
  anchor: P.jsonOrText(
    Joi.alternatives(
      Joi.number().integer().min(0),
      Joi.string().valid('newest', 'oldest', 'first_unread'),
    ).messages({ 'alternatives.match': 'Invalid anchor', 'alternatives.types': 'Invalid anchor' }),
  ),
  // FL 300: a list of IDs instead of a window; num_before and num_after default to 0 since.
  message_ids: P.json(Joi.array().items(Joi.number().integer().min(0))),
  use_first_unread_anchor: P.bool(Joi.boolean().default(false)),
  num_before: P.int(Joi.number().integer().min(0).default(0)),
  num_after: P.int(Joi.number().integer().min(0).default(0)),
  include_anchor: P.bool(Joi.boolean().default(true)),
  narrow: P.json(narrowSchema),
  apply_markdown: P.bool(Joi.boolean().default(true)),
  client_gravatar: P.bool(Joi.boolean().default(true)),
  allow_empty_topic_name: P.bool(Joi.boolean().default(false)),
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

interface GetOneParams {
  message_id: number;
  apply_markdown: boolean;
  allow_empty_topic_name: boolean;
}

interface MatchesParams {
  msg_ids: number[];
  narrow: RawNarrow;
}

interface FlagsParams {
  messages: number[];
  op: string;
  flag: string;
}

interface FlagsNarrowParams extends FlagsParams {
  anchor: Anchor;
  include_anchor: boolean;
  num_before: number;
  num_after: number;
  narrow: RawNarrow;
}

interface EditParams {
  message_id: number;
  content?: string;
  topic?: string;
  subject?: string;
  stream_id?: number;
  propagate_mode: PropagateMode;
  send_notification_to_old_thread: boolean;
  send_notification_to_new_thread: boolean;
}

const messageIdSpec = { message_id: P.int(Joi.number().integer().required()) };

export function messageRoutes(router: Router, ctx: AppContext): void {
  router.patch(
    '/messages/:message_id',
    authed<EditParams>(
      ctx,
      {
        ...messageIdSpec,
        content: P.string(),
        topic: P.string(),
        subject: P.string(),
        stream_id: P.int(),
        propagate_mode: P.string(
          Joi.string().valid('change_one', 'change_later', 'change_all').default('change_one'),
        ),
        send_notification_to_old_thread: P.bool(Joi.boolean().default(false)),
        send_notification_to_new_thread: P.bool(Joi.boolean().default(true)),
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
    authed<{ message_id: number }>(ctx, messageIdSpec, async ({ user, realm, params }) => {
      await deleteMessage(ctx, { user, realm, messageId: params.message_id });
    }),
  );
  router.get(
    '/messages/:message_id/history',
    authed<{ message_id: number }>(ctx, messageIdSpec, async ({ user, realm, params }) => ({
      ...(await messageHistory(ctx.db, { user, realm, messageId: params.message_id })),
    })),
  );
  router.post(
    '/messages/flags',
    authed<FlagsParams>(
      ctx,
      {
        messages: P.json(Joi.array().items(Joi.number().integer()).required()),
        op: P.string(Joi.string().required()),
        flag: P.string(Joi.string().required()),
      },
      async ({ user, realm, params }) => ({
        ...(await updateMessageFlags(ctx, { user, realm, ...params })),
      }),
    ),
  );
  router.post(
    '/messages/flags/narrow',
    authed<FlagsNarrowParams>(
      ctx,
      {
        anchor: P.jsonOrText(
          Joi.alternatives(
            Joi.number().integer().min(0),
            Joi.string().valid('newest', 'oldest', 'first_unread'),
          ).required(),
        ),
        include_anchor: P.bool(Joi.boolean().default(true)),
        num_before: P.int(Joi.number().integer().min(0).required()),
        num_after: P.int(Joi.number().integer().min(0).required()),
        narrow: P.json(narrowSchema.required()),
        op: P.string(Joi.string().required()),
        flag: P.string(Joi.string().required()),
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
    authed<{ stream_id: number }>(
      ctx,
      { stream_id: P.int(Joi.number().integer().required()) },
      async ({ user, realm, params }) => markChannelAsRead(ctx, user, realm, params.stream_id),
    ),
  );
  router.post(
    '/mark_topic_as_read',
    authed<{ stream_id: number; topic_name: string }>(
      ctx,
      {
        stream_id: P.int(Joi.number().integer().required()),
        topic_name: P.string(Joi.string().allow('').required()),
      },
      async ({ user, realm, params }) =>
        markTopicAsRead(ctx, user, realm, params.stream_id, params.topic_name),
    ),
  );
  router.get(
    '/messages',
    authed<GetMessagesParams>(ctx, getSpec, async ({ user, realm, params }) => {
      const common = {
        user,
        realm,
        narrow: params.narrow,
        applyMarkdown: params.apply_markdown,
        clientGravatar: params.client_gravatar,
        allowEmptyTopicName: params.allow_empty_topic_name,
      };
      if (params.message_ids !== undefined) {
        const windowed =
          params.num_before > 0 ||
          params.num_after > 0 ||
          params.anchor !== undefined ||
          params.use_first_unread_anchor;
        if (windowed) throw incompatibleParameters(MESSAGE_IDS_EXCLUDES);
        return { ...(await getMessages(ctx.db, { ...common, messageIds: params.message_ids })) };
      }
      let anchor = params.anchor;
      if (params.use_first_unread_anchor) anchor = 'first_unread';
      if (anchor === undefined) throw missingArgument('anchor');
      return {
        ...(await getMessages(ctx.db, {
          ...common,
          anchor,
          numBefore: params.num_before,
          numAfter: params.num_after,
          includeAnchor: params.include_anchor,
        })),
      };
    }),
  );
  router.get(
    '/messages/matches_narrow',
    authed<MatchesParams>(
      ctx,
      {
        msg_ids: P.json(Joi.array().items(Joi.number().integer()).required()),
        narrow: P.json(narrowSchema.required()),
      },
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
    authed<{ content: string }>(
      ctx,
      { content: P.string(Joi.string().allow('').required()) },
      async ({ realm, params }) => renderMessage(ctx, realm, params.content),
    ),
  );
  router.get(
    '/messages/:message_id',
    authed<GetOneParams>(
      ctx,
      {
        message_id: P.int(Joi.number().integer().required()),
        apply_markdown: P.bool(Joi.boolean().default(true)),
        allow_empty_topic_name: P.bool(Joi.boolean().default(false)),
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
  router.post(
    '/messages',
    authed<SendParams>(ctx, sendSpec, async ({ user, realm, params, req }) =>
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
