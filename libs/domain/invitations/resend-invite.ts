import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { writeInvitationEmails } from '../email/enqueue-email';
import { Permission, requireAccess } from '../permissions/access';
import { checkDailyInviteLimit } from './invite-limit';
import { pendingInvitation } from './pending-invitation';

/**
 * `POST /invites/{invite_id}/resend`: sends the invitation email again, unless the organization
 * has reached its daily invitation limit (resends are not recorded, so they do not count towards it).
 */
export async function resendInvite(ctx: AppContext, actor: User, realm: Realm, id: number) {
  const invitation = await pendingInvitation(ctx, realm, id);
  await requireAccess(ctx.db, {
    auth: { user: actor },
    permission: Permission.InvitationManage,
    ids: [invitation.id],
  });
  await inTransaction(ctx, async (tx) => {
    await checkDailyInviteLimit(tx, ctx.config, realm.id, 1);
    await writeInvitationEmails(tx, [invitation.id]);
  });
}
