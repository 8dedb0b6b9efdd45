import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { sendingClientName } from '../../../libs/domain/messages/sending-client';
import {
  createScheduledMessage,
  type ScheduledTarget,
  type ScheduledType,
} from '../../../libs/domain/scheduled-messages/create-scheduled-message';
import { deleteScheduledMessage } from '../../../libs/domain/scheduled-messages/delete-scheduled-message';
import { listScheduledMessages } from '../../../libs/domain/scheduled-messages/list-scheduled-messages';
import { updateScheduledMessage } from '../../../libs/domain/scheduled-messages/update-scheduled-message';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

const typeSchema = Joi.string().valid('direct', 'channel', 'stream', 'private');
const targetSchema = Joi.alternatives(
  Joi.number().integer(),
  Joi.array().items(Joi.number().integer()),
);
const timestampSchema = Joi.number().integer();

interface CreateParams {
  type: ScheduledType;
  to: ScheduledTarget;
  topic?: string;
  content: string;
  scheduled_delivery_timestamp: number;
  read_by_sender?: boolean;
  client?: string;
}

const createSpec = {
  type: P.string(typeSchema.required()),
  to: P.json(targetSchema.required()),
  topic: P.string(Joi.string().allow('')),
  content: P.string(Joi.string().allow('').required()),
  scheduled_delivery_timestamp: P.json(timestampSchema.required()),
  read_by_sender: P.bool(),
  client: P.string(),
};

interface UpdateParams {
  scheduled_message_id: number;
  type?: ScheduledType;
  to?: ScheduledTarget;
  topic?: string;
  content?: string;
  scheduled_delivery_timestamp?: number;
}

const idSpec = { scheduled_message_id: P.int(Joi.number().integer().required()) };

const updateSpec = {
  ...idSpec,
  type: P.string(typeSchema),
  to: P.json(targetSchema),
  topic: P.string(Joi.string().allow('')),
  content: P.string(Joi.string().allow('')),
  scheduled_delivery_timestamp: P.json(timestampSchema),
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
    authed<CreateParams>(ctx, createSpec, async ({ user, realm, params, req }) => ({
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
    authed<UpdateParams>(ctx, updateSpec, async ({ user, realm, params }) => {
      await updateScheduledMessage(ctx, user, realm, params.scheduled_message_id, {
        type: params.type,
        to: params.to,
        topic: params.topic,
        content: params.content,
        scheduledDeliveryTimestamp: params.scheduled_delivery_timestamp,
      });
    }),
  );
  router.delete(
    '/scheduled_messages/:scheduled_message_id',
    authed<{ scheduled_message_id: number }>(ctx, idSpec, async ({ user, params }) => {
      await deleteScheduledMessage(ctx, user, params.scheduled_message_id);
    }),
  );
}
