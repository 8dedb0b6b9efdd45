import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { enqueueInvitationEmail } from '../email/enqueue-email';
import { managesAllInvites, requireCanManageInvite } from '../permissions/invites';
import { checkDailyInviteLimit } from './invite-limit';
import { inviteManagers } from './invite-rules';
import { joinUrl } from './invite-users';

export const InviteStatus = { PENDING: 0, USED: 1, REVOKED: 2 } as const;

export interface ApiInvite {
  id: number;
  invited_by_user_id: number;
  invited: number;
  expiry_date: number | null;
  invited_as: number;
  email?: string;
  link_url?: string;
  is_multiuse: boolean;
  notify_referrer_on_join?: boolean;
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** Pending, unexpired invitations and links; administrators see everyone's, others their own. */
export async function listInvites(
  ctx: AppContext,
  actor: User,
  realm: Realm,
): Promise<ApiInvite[]> {
  const now = new Date();
  const where = {
    realmId: realm.id,
    status: InviteStatus.PENDING,
    OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
    ...(managesAllInvites(actor) ? {} : { referredById: actor.id }),
  };
  const [invites, links] = await Promise.all([
    ctx.db.invitation.findMany({ where, orderBy: { id: 'asc' } }),
    ctx.db.multiuseInvite.findMany({ where, orderBy: { id: 'asc' } }),
  ]);
  return [
    ...invites.map((i) => ({
      id: i.id,
      invited_by_user_id: i.referredById,
      invited: seconds(i.createdAt),
      expiry_date: i.expiresAt ? seconds(i.expiresAt) : null,
      invited_as: i.invitedAs,
      email: i.email,
      notify_referrer_on_join: i.notifyReferrerOnJoin,
      is_multiuse: false,
    })),
    ...links.map((l) => ({
      id: l.id,
      invited_by_user_id: l.referredById,
      invited: seconds(l.createdAt),
      expiry_date: l.expiresAt ? seconds(l.expiresAt) : null,
      invited_as: l.invitedAs,
      link_url: joinUrl(ctx, realm, l.confirmationKey),
      is_multiuse: true,
    })),
  ];
}

async function pendingInvitation(ctx: AppContext, realm: Realm, id: number) {
  const invitation = await ctx.db.invitation.findFirst({
    where: { id, realmId: realm.id, status: InviteStatus.PENDING },
  });
  if (!invitation || (invitation.expiresAt && invitation.expiresAt <= new Date())) {
    throw badRequest('No such invitation');
  }
  return invitation;
}

/** `DELETE /invites/{invite_id}`. */
export async function revokeInvite(ctx: AppContext, actor: User, realm: Realm, id: number) {
  const invitation = await pendingInvitation(ctx, realm, id);
  requireCanManageInvite(actor, invitation.referredById);
  await inTransaction(ctx, async (tx, events) => {
    await tx.invitation.update({ where: { id }, data: { status: InviteStatus.REVOKED } });
    await events.emit(
      realm.id,
      { type: 'invites_changed' },
      await inviteManagers(tx, realm.id, invitation.referredById),
    );
  });
}

/**
 * `POST /invites/{invite_id}/resend`: sends the invitation email again, unless the organization
 * has reached its daily invitation limit (resends are not recorded, so they do not count towards it).
 */
export async function resendInvite(ctx: AppContext, actor: User, realm: Realm, id: number) {
  const invitation = await pendingInvitation(ctx, realm, id);
  requireCanManageInvite(actor, invitation.referredById);
  await inTransaction(ctx, (tx) => checkDailyInviteLimit(tx, ctx.config, realm.id, 1));
  await enqueueInvitationEmail(ctx, invitation.id);
}

/** `DELETE /invites/multiuse/{invite_id}`. */
export async function revokeMultiuseInvite(ctx: AppContext, actor: User, realm: Realm, id: number) {
  const link = await ctx.db.multiuseInvite.findFirst({ where: { id, realmId: realm.id } });
  if (!link) throw badRequest('Invalid invitation ID.');
  if (link.status === InviteStatus.REVOKED) {
    throw badRequest('Invitation has already been revoked');
  }
  requireCanManageInvite(actor, link.referredById);
  await inTransaction(ctx, async (tx, events) => {
    await tx.multiuseInvite.update({ where: { id }, data: { status: InviteStatus.REVOKED } });
    await events.emit(
      realm.id,
      { type: 'invites_changed' },
      await inviteManagers(tx, realm.id, link.referredById),
    );
  });
}
