import type { User } from '../../../generated/prisma/client';
import { lockRow } from '../../db/locks';
import { inTransaction } from '../../events/outbox';
import { badRequest, insufficientPermission } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { uploadStore } from '../../storage/upload-store';
import { canAddCustomEmoji } from '../permissions/emoji';
import { sendEmoji } from './list-realm-emoji';

export const MAX_EMOJI_FILE_SIZE_MIB = 5;

const IMAGE_TYPES: Record<string, string> = {
  'image/png': 'png',
  'image/gif': 'gif',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

/** The leading bytes each accepted format starts with (RIFF....WEBP for WebP). */
function hasImageSignature(ext: string, data: Buffer): boolean {
  const starts = (bytes: number[], at = 0) => bytes.every((b, i) => data[at + i] === b);
  switch (ext) {
    case 'png':
      return starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    case 'gif':
      return starts([0x47, 0x49, 0x46, 0x38]);
    case 'jpg':
      return starts([0xff, 0xd8, 0xff]);
    case 'webp':
      return starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8);
    default:
      return false;
  }
}

export function checkEmojiName(name: string): void {
  if (!name) throw badRequest('Emoji name is missing');
  if (/^[0-9a-z\-_]+$/.test(name)) {
    if (/[-_]$/.test(name)) throw badRequest('Emoji names must end with either a letter or digit.');
    return;
  }
  throw badRequest('Invalid characters in emoji name');
}

export interface UploadedImage {
  buffer: Buffer;
  mimetype: string;
  size: number;
}

/** The user's organization, as far as `canAddCustomEmoji` reads it. */
const emojiSettings = (ctx: AppContext, user: User) =>
  ctx.db.realm.findUniqueOrThrow({
    where: { id: user.realmId },
    select: { canAddCustomEmojiGroupId: true },
  });

/** Where an emoji image is stored, and so served from: `/user_avatars/<key>`. */
export const emojiImageKey = (realmId: number, fileName: string) =>
  `${realmId}/emoji/images/${fileName}`;

/** `POST /realm/emoji/{emoji_name}`: stores the image in the upload store and adds the emoji. */
export async function uploadRealmEmoji(
  ctx: AppContext,
  input: { actor: User; name: string; files: UploadedImage[] },
): Promise<void> {
  const { actor, name } = input;
  checkEmojiName(name);
  if (!(await canAddCustomEmoji(ctx.db, actor, await emojiSettings(ctx, actor)))) {
    throw insufficientPermission();
  }
  const [file, ...others] = input.files;
  if (!file || others.length) throw badRequest('You must upload exactly one file.');
  if (file.size > MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024) {
    throw badRequest(
      `Uploaded file is larger than the allowed limit of ${MAX_EMOJI_FILE_SIZE_MIB} MiB`,
    );
  }
  // The type may be guessed from the file's name (an upload part without one), so the bytes
  // must be that image too; Zulip's image decoding refuses anything else as well.
  const ext = IMAGE_TYPES[file.mimetype];
  if (!ext || !hasImageSignature(ext, file.buffer)) throw badRequest('Invalid image format');
  await inTransaction(ctx, async (tx, events) => {
    // The organization's emoji change one request at a time: two uploads of one name make one.
    await lockRow(tx, 'realms', actor.realmId);
    const clash = await tx.realmEmoji.findFirst({
      where: { realmId: actor.realmId, name, deactivated: false },
    });
    if (clash) throw badRequest('A custom emoji with this name already exists.');
    const row = await tx.realmEmoji.create({
      data: { realmId: actor.realmId, name, authorId: actor.id, isAnimated: ext === 'gif' },
    });
    const fileName = `${row.id}.${ext}`;
    await uploadStore(ctx.config).putBuffer(
      emojiImageKey(actor.realmId, fileName),
      file.buffer,
      file.mimetype,
    );
    await tx.realmEmoji.update({ where: { id: row.id }, data: { fileName } });
    await sendEmoji(tx, events, actor.realmId);
  });
}
