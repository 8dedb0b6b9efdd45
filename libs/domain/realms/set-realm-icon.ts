import type { Realm, User } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { badRequest } from '../../core/errors';
import { inTransaction } from '../../events/outbox';
import { realmEvent } from '../../protocol/events/realm';
import { uploadStore } from '../../storage/upload-store';
import { realmUserAudience, requireRealmAdmin } from '../permissions/users';
import { MAX_IMAGE_FILE_SIZE_MIB } from '../register/state/realm';
import { squarePng, type AvatarImage } from '../users/set-avatar';
import { realmIconUrl } from './realm-url';

/** Zulip's organization icon: a 100 px square, as avatars are. */
const ICON_SIZE = 100;

/** The stored image `realmIconUrl` names for an uploaded icon: `/user_avatars/<key>`. */
export const realmIconKey = (realm: Pick<Realm, 'id'>) => `${realm.id}/realm/icon.png`;

/** Sets where the icon comes from, a new version, and tells everyone in the organization. */
async function switchIcon(ctx: AppContext, realm: Realm, source: 'U' | 'G'): Promise<Realm> {
  return inTransaction(ctx, async (tx, events) => {
    const updated = await tx.realm.update({
      where: { id: realm.id },
      data: { iconSource: source, iconVersion: { increment: 1 } },
    });
    await events.emit(
      realm.id,
      realmEvent({
        op: 'update_dict',
        property: 'default',
        data: { icon_source: source, icon_url: realmIconUrl(updated) },
      }),
      await realmUserAudience(tx, realm.id),
    );
    return updated;
  });
}

/**
 * `POST /realm/icon`: administrators upload one image, at most `max_icon_file_size_mib`, stored
 * as a square PNG; the organization's icon becomes it (`icon_source` "U").
 */
export async function setRealmIcon(
  ctx: AppContext,
  input: { actor: User; realm: Realm; files: AvatarImage[] },
): Promise<{ icon_url: string }> {
  const { actor, realm } = input;
  requireRealmAdmin(actor);
  const file = input.files[0];
  if (input.files.length !== 1 || !file) throw badRequest('You must upload exactly one icon.');
  if (file.size > MAX_IMAGE_FILE_SIZE_MIB * 1024 * 1024) {
    throw badRequest(
      `Uploaded file is larger than the allowed limit of ${MAX_IMAGE_FILE_SIZE_MIB} MiB`,
    );
  }
  const icon = await squarePng(file.buffer, ICON_SIZE);
  // The image goes first: a URL a client is sent always has its image behind it.
  await uploadStore(ctx.config).putBuffer(realmIconKey(realm), icon, 'image/png');
  return { icon_url: realmIconUrl(await switchIcon(ctx, realm, 'U')) };
}

/**
 * `DELETE /realm/icon`: back to the generated icon (`icon_source` "G"). The uploaded image is
 * removed; the new version keeps cached copies of its URL from being used.
 */
export async function deleteRealmIcon(
  ctx: AppContext,
  input: { actor: User; realm: Realm },
): Promise<{ icon_url: string }> {
  requireRealmAdmin(input.actor);
  const updated = await switchIcon(ctx, input.realm, 'G');
  await uploadStore(ctx.config).delete(realmIconKey(input.realm));
  return { icon_url: realmIconUrl(updated) };
}
