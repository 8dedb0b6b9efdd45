import type { Realm } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';

export const InviteStatus = { PENDING: 0, USED: 1, REVOKED: 2 } as const;

export async function pendingInvitation(ctx: AppContext, realm: Realm, id: number) {
  const invitation = await ctx.db.invitation.findFirst({
    where: { id, realmId: realm.id, status: InviteStatus.PENDING },
  });
  if (!invitation || (invitation.expiresAt && invitation.expiresAt <= new Date())) {
    throw badRequest('No such invitation');
  }
  return invitation;
}
