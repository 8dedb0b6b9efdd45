import type { Realm } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { badRequest } from '../../core/errors';
import { removeStoredFile } from '../attachments/storage';

export interface DeletedRealm {
  users: number;
  messages: number;
  uploads: number;
}

/**
 * The operator deletes an organization for good (Zulip's `manage.py delete_realm`): every row
 * that belongs to it, then its uploaded files. Only a deactivated organization is deleted, so
 * its users were signed out and their clients told first (deactivate-realm.ts); the caller
 * confirms by naming the subdomain again.
 */
export async function deleteRealm(
  ctx: AppContext,
  input: { realm: Realm; confirm: string },
): Promise<DeletedRealm> {
  const { realm } = input;
  if (input.confirm !== realm.stringId) {
    throw badRequest('The confirmation does not name this organization');
  }
  if (!realm.deactivated) throw badRequest('Deactivate the organization before deleting it');
  const pathIds = (
    await ctx.db.attachment.findMany({ where: { realmId: realm.id }, select: { pathId: true } })
  ).map((a) => a.pathId);
  const counted = await ctx.db.$transaction(async (tx) => {
    const users = await tx.user.count({ where: { realmId: realm.id, isBot: false } });
    const messages = await tx.message.count({ where: { realmId: realm.id } });
    // Channels first: their group settings point at groups with ON DELETE RESTRICT, and the
    // realm's cascade would meet the groups and the channels in no fixed order.
    await tx.stream.deleteMany({ where: { realmId: realm.id } });
    await tx.realm.delete({ where: { id: realm.id } });
    return { users, messages };
  });
  // The rows are gone: a file left by a failure here is one nothing can reach any more.
  for (const pathId of pathIds) await removeStoredFile(ctx.config, pathId);
  return { ...counted, uploads: pathIds.length };
}
