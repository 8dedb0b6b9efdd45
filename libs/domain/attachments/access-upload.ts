import type { Attachment, User } from '../../../generated/prisma/client';
import { forbidden, notFound } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { canAccessAttachment } from '../permissions/attachments';
import { uploadStore } from '../../storage/upload-store';
import { attachmentKey } from './storage';

/** An uploaded file ready to be sent: its key in the upload store and how to label it. */
export interface ServableFile {
  key: string;
  fileName: string;
  contentType: string | null;
}

export const fileNotFound = () => notFound('This file does not exist or has been deleted.');

/** The stored file of an attachment row, or "not found" when it is gone from storage. */
export async function servable(
  ctx: AppContext,
  attachment: Pick<Attachment, 'pathId' | 'fileName' | 'contentType'>,
): Promise<ServableFile> {
  const key = attachmentKey(attachment.pathId);
  if (!(await uploadStore(ctx.config).exists(key))) throw fileNotFound();
  return { key, fileName: attachment.fileName, contentType: attachment.contentType };
}

/**
 * The upload at `/user_uploads/<path_id>` if the user may read it (Zulip's serve_file):
 * unknown files are "not found", files the user may not read are refused with 403.
 */
export async function accessUpload(
  ctx: AppContext,
  user: Pick<User, 'id' | 'role' | 'realmId'>,
  pathId: string,
): Promise<{ attachment: Attachment; file: ServableFile }> {
  const attachment = await ctx.db.attachment.findUnique({ where: { pathId } });
  if (!attachment) throw fileNotFound();
  if (!(await canAccessAttachment(ctx.db, user, attachment))) {
    throw forbidden('You are not authorized to view this file.');
  }
  return { attachment, file: await servable(ctx, attachment) };
}
