import type { AppContext } from '../../core/context';
import { enqueueJob, JobName } from '../../jobs';

/** After a message commits: a worker decides who is told about it (decide-notifications.ts). */
export const enqueueNotificationDecision = (ctx: AppContext, messageId: number) =>
  enqueueJob(ctx, JobName.NOTIFY_MESSAGE, { messageId }, { jobId: `notify-message-${messageId}` });

/** After messages are read: their push notifications are cleared from the user's devices. */
export const enqueuePushRemoval = (ctx: AppContext, userId: number, messageIds: number[]) =>
  enqueueJob(ctx, JobName.REMOVE_PUSH, { userId, messageIds });
