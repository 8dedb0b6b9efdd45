import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { sendingClientName } from '../../../libs/domain/messages/sending-client';
import { CHANNEL_TYPES, DIRECT_TYPES } from '../../../libs/domain/messages/types';
import {
  createScheduledMessage,
  scheduledTarget,
} from '../../../libs/domain/scheduled-messages/create-scheduled-message';
import { deleteScheduledMessage } from '../../../libs/domain/scheduled-messages/delete-scheduled-message';
import { listScheduledMessages } from '../../../libs/domain/scheduled-messages/list-scheduled-messages';
import { updateScheduledMessage } from '../../../libs/domain/scheduled-messages/update-scheduled-message';
import { authed } from '../../../libs/http/route';

const type = P.oneOf(...CHANNEL_TYPES, ...DIRECT_TYPES);
// A JSON number, as Zulip's Json[int].
const timestamp = P.json(P.int());

const createSpec = {
  type: type.required(),
  to: scheduledTarget.required(),
  topic: P.string(),
  content: P.string().required(),
  scheduled_delivery_timestamp: timestamp.required(),
  read_by_sender: P.bool(),
  client: P.string(),
};

const idSpec = { scheduled_message_id: P.int().required() };

const updateSpec = {
  ...idSpec,
  type,
  to: scheduledTarget,
  topic: P.string(),
  content: P.string(),
  scheduled_delivery_timestamp: timestamp,
};

export function scheduledMessageRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/scheduled_messages',
    authed(ctx, {}, async ({ user }) => ({
      scheduled_messages: await listScheduledMessages(ctx, user),
    })),
  );
  router.post(
    '/scheduled_messages',
    authed(ctx, createSpec, async ({ user, realm, params, req }) => ({
      scheduled_message_id: await createScheduledMessage(ctx, {
        sender: user,
        realm,
        type: params.type,
        to: params.to,
        topic: params.topic,
        content: params.content,
        scheduledDeliveryTimestamp: params.scheduled_delivery_timestamp,
        readBySender: params.read_by_sender,
        clientName: sendingClientName(req.headers['user-agent'], params.client),
      }),
    })),
  );
  router.patch(
    '/scheduled_messages/:scheduled_message_id',
    authed(ctx, updateSpec, async ({ user, realm, params }) => {
      await updateScheduledMessage(ctx, {
        sender: user,
        realm,
        scheduledMessageId: params.scheduled_message_id,
        changes: {
          type: params.type,
          to: params.to,
          topic: params.topic,
          content: params.content,
          scheduledDeliveryTimestamp: params.scheduled_delivery_timestamp,
        },
      });
    }),
  );
  router.delete(
    '/scheduled_messages/:scheduled_message_id',
    authed(ctx, idSpec, async ({ user, params }) => {
      await deleteScheduledMessage(ctx, user, params.scheduled_message_id);
    }),
  );
}
