import type { Realm, User } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { checkAccess, Permission } from '../permissions/access';
import { joinUrl } from './confirmation-link';
import { InviteStatus } from './pending-invitation';

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
  };
  const [pendingInvites, pendingLinks] = await Promise.all([
    ctx.db.invitation.findMany({ where, orderBy: { id: 'asc' } }),
    ctx.db.multiuseInvite.findMany({ where, orderBy: { id: 'asc' } }),
  ]);
  // The rows read are handed over: the entry point keeps those the caller manages, asking nothing.
  const auth = { user: actor };
  const [managedInvites, managedLinks] = await Promise.all([
    checkAccess(ctx.db, {
      auth,
      permission: Permission.InvitationManage,
      ids: pendingInvites.map((i) => i.id),
      invites: pendingInvites,
    }),
    checkAccess(ctx.db, {
      auth,
      permission: Permission.MultiuseInviteManage,
      ids: pendingLinks.map((l) => l.id),
      invites: pendingLinks,
    }),
  ]);
  const invites = pendingInvites.filter((i) => managedInvites.has(i.id));
  const links = pendingLinks.filter((l) => managedLinks.has(l.id));
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
