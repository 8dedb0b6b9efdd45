import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { attachmentDicts, notifyAttachment, uploadSpaceUsed } from './format-attachment';
import { uploadStore } from '../../storage/upload-store';
import { attachmentKey, newPathId, uploadUrl } from './storage';
import { at } from '../../core/at';

/** A file the HTTP layer has spooled to disk, not yet checked. */
export interface SpooledFile {
  /** The multipart field name, used as the name when the part has no file name (as Django does). */
  fieldName: string;
  originalName: string;
  contentType: string;
  size: number;
  spoolPath: string;
}

export interface UploadedFile {
  uri: string;
  url: string;
  filename: string;
}

export const fileTooLarge = (maxMib: number) =>
  badRequest(`File is larger than this server's configured maximum upload size (${maxMib} MiB).`);

/** Clients may percent-encode the name (Zulip unquotes it); a part's path never counts. */
function uploadedName(file: SpooledFile): string {
  let name = file.originalName;
  try {
    name = decodeURIComponent(name);
  } catch {
    // Not percent-encoded after all: keep it as sent.
  }
  name = name.split(/[/\\]/).pop() ?? '';
  return name === '' || name === '.' || name === '..' ? file.fieldName : name;
}

/** A type the client did not really state is guessed from the name when the file is served. */
const statedType = (type: string) =>
  type === '' || type === 'application/octet-stream' ? null : type;

/**
 * `POST /user_uploads`: one file, within the size limit and the organization's quota, moved
 * from the spool into storage and recorded as an unclaimed attachment of its uploader, who is
 * sent an `attachment` add event. Spooled files are the caller's to remove.
 */
export async function uploadFile(
  ctx: AppContext,
  input: { actor: User; realm: Realm; files: SpooledFile[] },
): Promise<UploadedFile> {
  const { actor, realm, files } = input;
  const [file, ...others] = files;
  if (!file) throw badRequest('You must specify a file to upload');
  if (others.length) throw badRequest('You may only upload one file at a time');
  const maxMib = ctx.config.maxFileUploadSizeMib;
  if (file.size > maxMib * 1024 * 1024) throw fileTooLarge(maxMib);
  if (realm.uploadQuotaGb !== null) {
    const used = await uploadSpaceUsed(ctx.db, realm.id);
    if (used + file.size > realm.uploadQuotaGb * 1024 ** 3) {
      throw badRequest("Upload would exceed your organization's upload quota.");
    }
  }
  const name = uploadedName(file);
  const pathId = newPathId(realm.id, name);
  const store = uploadStore(ctx.config);
  const contentType = statedType(file.contentType);
  await store.putFile(attachmentKey(pathId), file.spoolPath, contentType);
  try {
    await inTransaction(ctx, async (tx, events) => {
      const row = await tx.attachment.create({
        data: {
          realmId: realm.id,
          ownerId: actor.id,
          pathId,
          fileName: name,
          size: file.size,
          contentType,
        },
      });
      const dict = at(await attachmentDicts(tx, { id: row.id }), 0);
      await notifyAttachment(tx, events, actor, 'add', dict);
    });
  } catch (err) {
    // No row, no file: nothing could ever serve or delete it.
    await store.delete(attachmentKey(pathId));
    throw err;
  }
  return { uri: uploadUrl(pathId), url: uploadUrl(pathId), filename: name };
}
