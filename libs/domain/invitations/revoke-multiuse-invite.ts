import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { Permission, requireAccess } from '../permissions/access';
import { inviteManagerIds } from '../permissions/invites';
import { InviteStatus } from './pending-invitation';
import { invitesChangedEvent } from '../../protocol/events/invites-changed';

/** `DELETE /invites/multiuse/{invite_id}`. */
export async function revokeMultiuseInvite(ctx: AppContext, actor: User, realm: Realm, id: number) {
  const link = await ctx.db.multiuseInvite.findFirst({ where: { id, realmId: realm.id } });
  if (!link) throw badRequest('Invalid invitation ID.');
  if (link.status === InviteStatus.REVOKED) {
    throw badRequest('Invitation has already been revoked');
  }
  await requireAccess(ctx.db, {
    auth: { user: actor },
    permission: Permission.MultiuseInviteManage,
    ids: [link.id],
  });
  await inTransaction(ctx, async (tx, events) => {
    await tx.multiuseInvite.update({ where: { id }, data: { status: InviteStatus.REVOKED } });
    await events.emit(realm.id, invitesChangedEvent({}), [
      ...(await inviteManagerIds(tx, realm.id, link.referredById)),
    ]);
  });
}
