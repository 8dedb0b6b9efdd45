import type { Realm, User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { inTransaction } from '../../events/outbox';
import { uploadStore } from '../../storage/upload-store';
import { canChangeOwnAvatar, usersWhoCanAccess } from '../permissions/users';
import { avatarUpdate, avatarUrl } from './avatar';
import { realmUserEvent } from '../../protocol/events/realm-user';
import { botAdministratorIds } from '../permissions/bots';
import { realmBotEvent } from '../../protocol/events/realm-bot';

/** Zulip's avatar sizes: the small square lists show, and the medium one profiles show. */
const AVATAR_SIZE = 100;
const MEDIUM_AVATAR_SIZE = 500;

/** The stored images `avatarUrl` names: `/user_avatars/<key>`. */
export const avatarKeys = (user: Pick<User, 'id' | 'realmId'>) => ({
  small: `${user.realmId}/${user.id}.png`,
  medium: `${user.realmId}/${user.id}-medium.png`,
});

export interface AvatarImage {
  buffer: Buffer;
  size: number;
}

/** Square PNGs cut from the middle of any image sharp decodes, as Zulip's resize_avatar does. */
export async function squarePng(image: Buffer, size: number): Promise<Buffer> {
  // libvips is loaded on the first avatar, not in every process that serves the API.
  const { default: sharp } = await import('sharp');
  try {
    return await sharp(image, { limitInputPixels: 100_000_000 })
      .rotate()
      .resize(size, size, { fit: 'cover' })
      .png()
      .toBuffer();
  } catch {
    throw badRequest('Could not decode image; did you upload an image file?');
  }
}

/** Changes the avatar source and version and tells who can access the user. */
async function switchAvatar(ctx: AppContext, user: User, source: 'U' | 'G'): Promise<User> {
  return inTransaction(ctx, async (tx, events) => {
    const updated = await tx.user.update({
      where: { id: user.id },
      data: { avatarSource: source, avatarVersion: { increment: 1 } },
    });
    await events.emit(
      user.realmId,
      realmUserEvent({ op: 'update', person: avatarUpdate(updated) }),
      await usersWhoCanAccess(tx, updated),
    );
    // A bot's owner and the administrators also list it in realm_bots (Zulip's
    // notify_avatar_url_change sends them this too).
    if (updated.isBot) {
      await events.emit(
        user.realmId,
        realmBotEvent({
          op: 'update',
          bot: { user_id: user.id, avatar_url: avatarUrl(updated) },
        }),
        [...(await botAdministratorIds(tx, user.realmId, updated.botOwnerId))],
      );
    }
    return updated;
  });
}

/**
 * `POST /users/me/avatar`: one image, at most MAX_AVATAR_FILE_SIZE_MIB, stored as the two square
 * PNGs of Zulip's sizes; the user's avatar becomes the uploaded one.
 */
export async function setAvatar(
  ctx: AppContext,
  input: { actor: User; realm: Realm; files: AvatarImage[] },
): Promise<{ avatar_url: string }> {
  const { actor, realm } = input;
  if (!canChangeOwnAvatar(actor, realm)) {
    throw badRequest('Avatar changes are disabled in this organization.');
  }
  const [file, ...others] = input.files;
  if (!file || others.length) throw badRequest('You must upload exactly one avatar.');
  const maxMib = ctx.config.maxAvatarFileSizeMib;
  if (file.size > maxMib * 1024 * 1024) {
    throw badRequest(`Uploaded file is larger than the allowed limit of ${maxMib} MiB`);
  }
  const [small, medium] = await Promise.all([
    squarePng(file.buffer, AVATAR_SIZE),
    squarePng(file.buffer, MEDIUM_AVATAR_SIZE),
  ]);
  const keys = avatarKeys(actor);
  const store = uploadStore(ctx.config);
  // The images go first: a URL a client is sent always has its image behind it.
  await store.putBuffer(keys.small, small, 'image/png');
  await store.putBuffer(keys.medium, medium, 'image/png');
  return { avatar_url: avatarUrl(await switchAvatar(ctx, actor, 'U')) };
}

/** `DELETE /users/me/avatar`: back to the Gravatar; the uploaded images are removed. */
export async function deleteAvatar(
  ctx: AppContext,
  input: { actor: User; realm: Realm },
): Promise<{ avatar_url: string }> {
  const { actor, realm } = input;
  if (!canChangeOwnAvatar(actor, realm)) {
    throw badRequest('Avatar changes are disabled in this organization.');
  }
  const updated = await switchAvatar(ctx, actor, 'G');
  const keys = avatarKeys(actor);
  const store = uploadStore(ctx.config);
  await Promise.all([store.delete(keys.small), store.delete(keys.medium)]);
  return { avatar_url: avatarUrl(updated) };
}
