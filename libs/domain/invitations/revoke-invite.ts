import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { Permission, requireAccess } from '../permissions/access';
import { inviteManagerIds } from '../permissions/invites';
import { InviteStatus, pendingInvitation } from './pending-invitation';
import { invitesChangedEvent } from '../../protocol/events/invites-changed';

/** `DELETE /invites/{invite_id}`. */
export async function revokeInvite(ctx: AppContext, actor: User, realm: Realm, id: number) {
  const invitation = await pendingInvitation(ctx, realm, id);
  await requireAccess(ctx.db, {
    auth: { user: actor },
    permission: Permission.InvitationManage,
    ids: [invitation.id],
  });
  await inTransaction(ctx, async (tx, events) => {
    await tx.invitation.update({ where: { id }, data: { status: InviteStatus.REVOKED } });
    await events.emit(realm.id, invitesChangedEvent({}), [
      ...(await inviteManagerIds(tx, realm.id, invitation.referredById)),
    ]);
  });
}
