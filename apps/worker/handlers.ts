import { deleteUnclaimedAttachments } from '../../libs/domain/attachments/delete-unclaimed';
import { deliverScheduledMessage } from '../../libs/domain/scheduled-messages/deliver-scheduled-message';
import { sendEmailJob } from '../../libs/domain/email/send-email-job';
import { deliverOutgoingWebhook } from '../../libs/domain/outgoing-webhooks/deliver-webhook';
import { JobName } from '../../libs/jobs';
import { handler, type HandlerEntry } from './start-workers';

/** One handler per job of the catalogue; startWorkers refuses to run if this list is not 1:1. */
export const jobHandlers: HandlerEntry[] = [
  handler(JobName.SEND_EMAIL, (ctx, payload) => sendEmailJob(ctx, payload)),
  handler(JobName.OUTGOING_WEBHOOK, (ctx, payload, run) =>
    deliverOutgoingWebhook(ctx, payload, run),
  ),
  handler(JobName.DELIVER_SCHEDULED_MESSAGE, (ctx, payload, run) =>
    deliverScheduledMessage(ctx, payload, run),
  ),
  handler(JobName.DELETE_UNCLAIMED_ATTACHMENTS, async (ctx) => {
    await deleteUnclaimedAttachments(ctx, {
      olderThanDays: ctx.config.unclaimedUploadRetentionDays,
    });
  }),
];
