import Joi from 'joi';

/** The message a notification decision is about; the worker reads everything else. */
export interface NotifyMessagePayload {
  messageId: number;
}

/**
 * A user's last event queue was garbage-collected while it still held these messages (Zulip's
 * missedmessage_hook): they are decided again for that user, as someone away.
 */
export interface NotifyCollectedQueuePayload {
  userId: number;
  messageIds: number[];
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

/** The most recent messages of a collected queue that are decided again; older ones are noise. */
export const MAX_COLLECTED_MESSAGES = 1000;

export const notificationJobSchemas = {
  notifyMessage: Joi.object({ messageId: id }),
  missedMessageEmails: Joi.object({ dueAt: id }),
  notifyCollectedQueue: Joi.object({
    userId: id,
    messageIds: Joi.array().items(id).min(1).max(MAX_COLLECTED_MESSAGES).required(),
  }),
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
