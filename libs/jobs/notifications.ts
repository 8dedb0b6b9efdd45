import Joi from 'joi';

/** The message a notification decision is about; the worker reads everything else. */
export interface NotifyMessagePayload {
  messageId: number;
}

/** Missed-message emails due at `dueAt` (ms); the rows in PostgreSQL say for whom and what. */
export interface MissedMessageEmailsPayload {
  dueAt: number;
}

/** Pushes for one message, one entry per user with the reason (a notification-rules trigger). */
export interface PushMessagePayload {
  messageId: number;
  recipients: { userId: number; trigger: string }[];
}

/** Clear the notifications of these messages from the user's devices (they were read). */
export interface RemovePushPayload {
  userId: number;
  messageIds: number[];
}

/** Tell the bouncer about a device token added or removed through the API. */
export interface PushDevicePayload {
  op: 'register' | 'unregister';
  userId: number;
  kind: 1 | 2;
  token: string;
  appId: string | null;
}

const id = Joi.number().integer().required();

export const notificationJobSchemas = {
  notifyMessage: Joi.object({ messageId: id }),
  missedMessageEmails: Joi.object({ dueAt: id }),
  pushMessage: Joi.object({
    messageId: id,
    recipients: Joi.array()
      .items(Joi.object({ userId: id, trigger: Joi.string().required() }))
      .min(1)
      .required(),
  }),
  removePush: Joi.object({ userId: id, messageIds: Joi.array().items(id).min(1).required() }),
  pushDevice: Joi.object({
    op: Joi.string().valid('register', 'unregister').required(),
    userId: id,
    kind: Joi.number().valid(1, 2).required(),
    token: Joi.string().required(),
    appId: Joi.string().allow(null).required(),
  }),
};
