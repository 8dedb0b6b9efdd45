import type { Tx } from '../../db/client';
import { Jobs, writeJob, writeJobs } from '../../jobs';

/** Stable job ID of a message's notification decision. */
export const notifyMessageJobId = (messageId: number) => `notify-message-${messageId}`;

/** In the message's transaction: a worker decides who is told about it (decide-notifications.ts). */
export const writeNotificationDecision = (tx: Tx, messageId: number) =>
  writeJob(tx, Jobs.notifyMessage, { messageId }, { jobId: notifyMessageJobId(messageId) });

/** In the transaction that reads (or deletes) messages: their pushes are cleared from devices. */
export const writePushRemovals = (tx: Tx, removals: { userId: number; messageIds: number[] }[]) =>
  writeJobs(
    tx,
    Jobs.removePush,
    removals.map((payload) => ({ payload })),
  );
