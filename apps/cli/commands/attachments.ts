import { deleteUnclaimedAttachments } from '../../../libs/domain/attachments/delete-unclaimed';
import type { AppContext } from '../../../libs/core/context';
import { optionalFlag, parseFlags, UsageError } from '../args';

/**
 * `delete-unclaimed-attachments`: what the worker does daily, on demand (Zulip's management
 * command of the same name). `--days` defaults to UNCLAIMED_UPLOAD_RETENTION_DAYS.
 */
export async function deleteUnclaimedAttachmentsCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['days']);
  const days = optionalFlag(flags, 'days');
  const olderThanDays = days === undefined ? ctx.config.unclaimedUploadRetentionDays : Number(days);
  if (!Number.isFinite(olderThanDays) || olderThanDays < 0 || days?.trim() === '') {
    throw new UsageError('--days must be a number of days, 0 or more');
  }
  return {
    older_than_days: olderThanDays,
    deleted: await deleteUnclaimedAttachments(ctx, { olderThanDays }),
  };
}
