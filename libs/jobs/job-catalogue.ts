import Joi from 'joi';
import type { JobsOptions } from 'bullmq';
import { emailJobSchema, type EmailJobPayload } from './email';
import {
  notificationJobSchemas,
  type MissedMessageEmailsPayload,
  type NotifyMessagePayload,
  type NotifyCollectedQueuePayload,
  type PushDevicePayload,
  type PushMessagePayload,
  type RemovePushPayload,
} from './notifications';

/**
 * BullMQ queue names, one per kind of work.
 * NEVER RENAME: queued and delayed jobs live in Redis under these names.
 */
export const QueueName = {
  EMAIL: 'email',
  OUTGOING_WEBHOOKS: 'outgoing-webhooks',
  SCHEDULED_MESSAGES: 'scheduled-messages',
  MAINTENANCE: 'maintenance',
  NOTIFICATIONS: 'notifications',
  PUSH_NOTIFICATIONS: 'push-notifications',
  EMBED_LINKS: 'embed-links',
} as const;
export type QueueNameValue = (typeof QueueName)[keyof typeof QueueName];

/**
 * Job names. NEVER RENAME: queued jobs carry this name and a worker dispatches on it.
 */
export const JobName = {
  SEND_EMAIL: 'send-email',
  OUTGOING_WEBHOOK: 'outgoing-webhook',
  DELIVER_SCHEDULED_MESSAGE: 'deliver-scheduled-message',
  DELETE_UNCLAIMED_ATTACHMENTS: 'delete-unclaimed-attachments',
  NOTIFY_MESSAGE: 'notify-message',
  NOTIFY_COLLECTED_QUEUE: 'notify-collected-queue',
  MISSED_MESSAGE_EMAILS: 'missed-message-emails',
  NOTIFICATIONS_SWEEP: 'notifications-sweep',
  PUSH_MESSAGE: 'push-message',
  REMOVE_PUSH: 'remove-push',
  PUSH_DEVICE: 'push-device',
  REALM_EXPORT: 'realm-export',
  ARCHIVE_EXPIRED_MESSAGES: 'archive-expired-messages',
  EMBED_LINKS: 'embed-links',
} as const;
export type JobNameValue = (typeof JobName)[keyof typeof JobName];

export interface OutgoingWebhookPayload {
  messageId: number;
  botId: number;
}

export interface ScheduledDeliveryPayload {
  scheduledMessageId: number;
}

/** Zulip's embed_links event: the message, the content its links were read from, the links. */
export interface EmbedLinksPayload {
  messageId: number;
  /** SHA-256 (hex) of the content rendered: an edit since then leaves the job nothing to do. */
  contentSha256: string;
  urls: string[];
}

export interface RealmExportPayload {
  exportId: number;
}

/** The retention period is read from the running worker's config, so the job carries nothing. */
export type DeleteUnclaimedAttachmentsPayload = Record<string, never>;

export interface JobDefinition {
  queue: QueueNameValue;
  schema: Joi.Schema;
  /** Defaults applied when the job is enqueued. */
  options: JobsOptions;
  /** A job the worker tier runs on its own, this often; the scheduler ID keeps one schedule per deployment. */
  repeat?: JobRepeat;
}

export interface JobRepeat {
  /** NEVER RENAME: the schedule lives in Redis under this ID; a new ID would add a second one. */
  schedulerId: string;
  everyMs: number;
  payload: Record<string, never>;
}

/** One job of the catalogue: its name, its definition, and (as a type only) its payload. */
export interface JobType<N extends JobNameValue = JobNameValue, P = unknown> extends JobDefinition {
  readonly name: N;
  /** Never set: carries the payload type to `writeJob` and the handlers. */
  readonly payloadType?: P;
}

export type PayloadOf<J> = J extends JobType<JobNameValue, infer P> ? P : never;

/**
 * Defines a job with its payload type: `defineJob<Payload>()({ name, queue, schema, options })`
 * (two calls, so that the payload is given and the name's literal type is inferred).
 */
export const defineJob =
  <P>() =>
  <N extends JobNameValue>(def: JobDefinition & { name: N }): JobType<N, P> =>
    def;

/**
 * Zulip's MAX_REQUEST_RETRIES: a bot that times out or cannot be reached is tried again three
 * times; after the fourth failure the conversation and the bot's owner are told.
 */
export const OUTGOING_WEBHOOK_MAX_RETRIES = 3;

/** Every job the server runs, with its payload type. */
export const Jobs = {
  sendEmail: defineJob<EmailJobPayload>()({
    name: JobName.SEND_EMAIL,
    queue: QueueName.EMAIL,
    schema: emailJobSchema,
    options: {
      attempts: 5,
      backoff: { type: 'exponential', delay: 2000 },
      removeOnComplete: 1000,
      removeOnFail: 5000,
    },
  }),
  outgoingWebhook: defineJob<OutgoingWebhookPayload>()({
    name: JobName.OUTGOING_WEBHOOK,
    queue: QueueName.OUTGOING_WEBHOOKS,
    schema: Joi.object({
      messageId: Joi.number().integer().required(),
      botId: Joi.number().integer().required(),
    }),
    options: {
      attempts: 1 + OUTGOING_WEBHOOK_MAX_RETRIES,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: 1000,
      removeOnFail: 5000,
    },
  }),
  deliverScheduledMessage: defineJob<ScheduledDeliveryPayload>()({
    name: JobName.DELIVER_SCHEDULED_MESSAGE,
    queue: QueueName.SCHEDULED_MESSAGES,
    schema: Joi.object({ scheduledMessageId: Joi.number().integer().required() }),
    options: {
      attempts: 5,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: true,
      removeOnFail: 5000,
    },
  }),
  deleteUnclaimedAttachments: defineJob<DeleteUnclaimedAttachmentsPayload>()({
    name: JobName.DELETE_UNCLAIMED_ATTACHMENTS,
    queue: QueueName.MAINTENANCE,
    schema: Joi.object({}),
    // Tomorrow's run catches whatever a failed run left.
    options: { attempts: 1, removeOnComplete: 100, removeOnFail: 100 },
    repeat: {
      schedulerId: 'daily-delete-unclaimed-attachments',
      everyMs: 24 * 60 * 60 * 1000,
      payload: {},
    },
  }),
  notifyMessage: defineJob<NotifyMessagePayload>()({
    name: JobName.NOTIFY_MESSAGE,
    queue: QueueName.NOTIFICATIONS,
    schema: notificationJobSchemas.notifyMessage,
    options: {
      attempts: 8,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: true,
      removeOnFail: 5000,
    },
  }),
  // Read messages are skipped when the job runs; a decision made twice writes nothing twice.
  notifyCollectedQueue: defineJob<NotifyCollectedQueuePayload>()({
    name: JobName.NOTIFY_COLLECTED_QUEUE,
    queue: QueueName.NOTIFICATIONS,
    schema: notificationJobSchemas.notifyCollectedQueue,
    options: {
      attempts: 5,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: true,
      removeOnFail: 5000,
    },
  }),
  missedMessageEmails: defineJob<MissedMessageEmailsPayload>()({
    name: JobName.MISSED_MESSAGE_EMAILS,
    queue: QueueName.NOTIFICATIONS,
    schema: notificationJobSchemas.missedMessageEmails,
    // The rows stay in PostgreSQL until sent; the minutely sweep below sends what a lost job left.
    options: {
      attempts: 5,
      backoff: { type: 'exponential', delay: 2000 },
      removeOnComplete: true,
      removeOnFail: 5000,
    },
  }),
  // Decides the messages whose decision job was lost, and sends overdue emails.
  notificationsSweep: defineJob<Record<string, never>>()({
    name: JobName.NOTIFICATIONS_SWEEP,
    queue: QueueName.NOTIFICATIONS,
    schema: Joi.object({}),
    options: { attempts: 1, removeOnComplete: 100, removeOnFail: 100 },
    repeat: { schedulerId: 'minutely-notifications-sweep', everyMs: 60_000, payload: {} },
  }),
  // Zulip retries a bouncer that cannot be reached or fails with backoff; a refusal is final.
  pushMessage: defineJob<PushMessagePayload>()({
    name: JobName.PUSH_MESSAGE,
    queue: QueueName.PUSH_NOTIFICATIONS,
    schema: notificationJobSchemas.pushMessage,
    options: {
      attempts: 6,
      backoff: { type: 'exponential', delay: 2000 },
      removeOnComplete: true,
      removeOnFail: 5000,
    },
  }),
  removePush: defineJob<RemovePushPayload>()({
    name: JobName.REMOVE_PUSH,
    queue: QueueName.PUSH_NOTIFICATIONS,
    schema: notificationJobSchemas.removePush,
    options: {
      attempts: 6,
      backoff: { type: 'exponential', delay: 2000 },
      removeOnComplete: true,
      removeOnFail: 5000,
    },
  }),
  pushDevice: defineJob<PushDevicePayload>()({
    name: JobName.PUSH_DEVICE,
    queue: QueueName.PUSH_NOTIFICATIONS,
    schema: notificationJobSchemas.pushDevice,
    options: {
      attempts: 6,
      backoff: { type: 'exponential', delay: 2000 },
      removeOnComplete: true,
      removeOnFail: 5000,
    },
  }),
  // Zulip runs archive_messages from cron; the retention is in days, so an hour's lag is nothing.
  archiveExpiredMessages: defineJob<Record<string, never>>()({
    name: JobName.ARCHIVE_EXPIRED_MESSAGES,
    queue: QueueName.MAINTENANCE,
    schema: Joi.object({}),
    // A retry takes up where the failed run stopped (each batch commits on its own): under load
    // a batch may wait past Prisma's 10 s for a connection, and a backlog of a million messages
    // must not wait an hour for the next run.
    options: {
      attempts: 5,
      backoff: { type: 'exponential', delay: 10_000 },
      removeOnComplete: 100,
      removeOnFail: 100,
    },
    repeat: {
      schedulerId: 'hourly-archive-expired-messages',
      everyMs: 60 * 60 * 1000,
      payload: {},
    },
  }),
  // An export can take minutes; a failed one is reported to the admins, who ask again.
  realmExport: defineJob<RealmExportPayload>()({
    name: JobName.REALM_EXPORT,
    queue: QueueName.MAINTENANCE,
    schema: Joi.object({ exportId: Joi.number().integer().required() }),
    options: { attempts: 1, removeOnComplete: 100, removeOnFail: 100 },
  }),
  // A page that cannot be fetched gets no preview (and that is cached); a retry is for the
  // database, and finds the fetched pages in the cache.
  embedLinks: defineJob<EmbedLinksPayload>()({
    name: JobName.EMBED_LINKS,
    queue: QueueName.EMBED_LINKS,
    schema: Joi.object({
      messageId: Joi.number().integer().required(),
      contentSha256: Joi.string().hex().length(64).required(),
      urls: Joi.array().items(Joi.string().max(2048)).min(1).max(24).required(),
    }),
    options: {
      attempts: 3,
      backoff: { type: 'exponential', delay: 2000 },
      removeOnComplete: true,
      removeOnFail: 5000,
    },
  }),
} as const;

type JobList = (typeof Jobs)[keyof typeof Jobs];

/** Payload type per job name. */
export type JobPayloads = { [J in JobList as J['name']]: PayloadOf<J> };

/** The jobs by name, as the worker dispatches on them. */
export const jobCatalogue = Object.fromEntries(
  Object.values(Jobs).map((job) => [job.name, job]),
) as Record<JobNameValue, JobType>;

/** Validates a payload against its job's schema; used when enqueuing and again when running. */
export function validatePayload<N extends JobNameValue>(name: N, payload: unknown): JobPayloads[N] {
  const { value, error } = jobCatalogue[name].schema.validate(payload, {
    abortEarly: true,
    convert: false,
  });
  if (error) throw new Error(`Invalid payload for job ${name}: ${error.message}`);
  return value as JobPayloads[N];
}
