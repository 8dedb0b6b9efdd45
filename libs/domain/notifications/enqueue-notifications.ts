import type { Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { Jobs, writeJobs } from '../../jobs';

/** Stable job ID of a message's notification decision. */
export const notifyMessageJobId = (messageId: number) => `notify-message-${messageId}`;

/**
 * In the message's transaction: a worker decides who is told about it (decide-notifications.ts).
 * The job is written with the transaction's events.
 */
export const oweNotificationDecision = (events: EventSink, messageId: number) =>
  events.owe(Jobs.notifyMessage, [
    { payload: { messageId }, jobId: notifyMessageJobId(messageId) },
  ]);

/** In the transaction that reads (or deletes) messages: their pushes are cleared from devices. */
export const writePushRemovals = (tx: Tx, removals: { userId: number; messageIds: number[] }[]) =>
  writeJobs(
    tx,
    Jobs.removePush,
    removals.map((payload) => ({ payload })),
  );
