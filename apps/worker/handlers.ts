import { deleteUnclaimedAttachments } from '../../libs/domain/attachments/delete-unclaimed';
import { deliverScheduledMessage } from '../../libs/domain/scheduled-messages/deliver-scheduled-message';
import { sendEmailJob } from '../../libs/domain/email/send-email-job';
import { deliverOutgoingWebhook } from '../../libs/domain/outgoing-webhooks/deliver-webhook';
import { JobName } from '../../libs/jobs';
import {
  decideMessageNotifications,
  redecideLostNotifications,
} from '../../libs/domain/notifications/decide-notifications';
import { sendDueMissedMessageEmails } from '../../libs/domain/notifications/send-missed-message-emails';
import { notifyCollectedQueue } from '../../libs/domain/notifications/notify-collected-queue';
import { sendPushNotifications } from '../../libs/domain/push/send-push-notifications';
import { removePushNotifications } from '../../libs/domain/push/remove-push-notifications';
import { syncPushDevice } from '../../libs/domain/push/sync-push-device';
import { archiveExpiredMessages } from '../../libs/domain/retention/archive-expired-messages';
import { purgeArchivedMessages } from '../../libs/domain/retention/purge-archived-messages';
import { runRealmExport } from '../../libs/import-export/run-realm-export';
import { embedLinks } from '../../libs/domain/link-previews/embed-links';
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
  handler(JobName.NOTIFY_MESSAGE, async (ctx, payload) => {
    await decideMessageNotifications(ctx, payload);
  }),
  handler(JobName.NOTIFY_COLLECTED_QUEUE, async (ctx, payload) => {
    await notifyCollectedQueue(ctx, payload);
  }),
  handler(JobName.MISSED_MESSAGE_EMAILS, async (ctx, payload) => {
    await sendDueMissedMessageEmails(ctx, payload.dueAt);
  }),
  handler(JobName.NOTIFICATIONS_SWEEP, async (ctx) => {
    await redecideLostNotifications(ctx);
    await sendDueMissedMessageEmails(ctx);
  }),
  handler(JobName.PUSH_MESSAGE, async (ctx, payload) => {
    await sendPushNotifications(ctx, payload);
  }),
  handler(JobName.REMOVE_PUSH, (ctx, payload) => removePushNotifications(ctx, payload)),
  handler(JobName.PUSH_DEVICE, (ctx, payload) => syncPushDevice(ctx, payload)),
  handler(JobName.ARCHIVE_EXPIRED_MESSAGES, async (ctx) => {
    await archiveExpiredMessages(ctx);
    await purgeArchivedMessages(ctx, { olderThanDays: ctx.config.archivedDataVacuumingDelayDays });
  }),
  handler(JobName.REALM_EXPORT, (ctx, payload) => runRealmExport(ctx, payload)),
  handler(JobName.EMBED_LINKS, (ctx, payload) => embedLinks(ctx, payload)),
];
