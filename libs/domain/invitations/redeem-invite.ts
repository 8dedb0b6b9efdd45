import type { Realm } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { passwordIsStrong } from '../auth/password-strength';
import { createUserInTransaction, hashPassword } from '../users/create-user';
import type { RoleCode } from '../users/roles';
import { normalizeEmail } from '../users/validate';
import { realmEmailRule, signupRefusalText } from '../realm-domains/email-restrictions';
import { inviteManagerIds } from '../permissions/invites';
import { InviteStatus } from './pending-invitation';
import { notifyReferrer } from './notify-referrer';
import { invitesChangedEvent } from '../../protocol/events/invites-changed';

export interface RedeemInviteInput {
  realm: Realm;
  key: string;
  /** Required for reusable links; for an email invitation it must match when given. */
  email?: string;
  fullName: string;
  password?: string;
}

export interface RedeemedAccount {
  user_id: number;
  email: string;
  api_key: string;
}

const expiredLink = () => badRequest('The confirmation link has expired or been deactivated.');

/**
 * Sign-up through an invitation (`POST /invites/redeem`): checks the address against the
 * organization's email rules, creates the account with the invited role, subscribes it to the
 * invitation's channels (and the default channels if the invitation says so), adds it to its
 * groups, marks the invitation used, tells the inviter if asked to, and returns the new API key.
 */
export async function redeemInvite(
  ctx: AppContext,
  input: RedeemInviteInput,
): Promise<RedeemedAccount> {
  const { realm } = input;
  const now = new Date();
  const live = { realmId: realm.id, confirmationKey: input.key, status: InviteStatus.PENDING };
  const invitation = await ctx.db.invitation.findFirst({
    where: live,
    include: { streams: true, groups: true },
  });
  const link = invitation
    ? null
    : await ctx.db.multiuseInvite.findFirst({
        where: live,
        include: { streams: true, groups: true },
      });
  const found = invitation ?? link;
  if (!found || (found.expiresAt && found.expiresAt <= now)) throw expiredLink();

  let email: string;
  if (invitation) {
    email = invitation.email;
    if (input.email !== undefined && normalizeEmail(input.email) !== email) {
      throw badRequest('The email address does not match the invitation.');
    }
  } else {
    if (input.email === undefined) throw badRequest("Missing 'email' argument");
    email = normalizeEmail(input.email);
  }
  const refusal = (await realmEmailRule(ctx.db, realm))(email);
  if (refusal) throw badRequest(signupRefusalText(refusal, email));
  if (input.password !== undefined && !passwordIsStrong(ctx.config, input.password)) {
    throw badRequest('The password is too weak.');
  }
  const passwordHash = input.password ? await hashPassword(ctx, input.password) : null;
  const streamIds = found.streams.map((s) => s.streamId);
  const groupIds = found.groups.map((g) => g.userGroupId);

  const created = await inTransaction(ctx, async (tx, events) => {
    if (invitation) {
      // Claimed first, so two concurrent redemptions of one invitation cannot both succeed.
      const { count } = await tx.invitation.updateMany({
        where: { id: invitation.id, status: InviteStatus.PENDING },
        data: { status: InviteStatus.USED },
      });
      if (count === 0) throw expiredLink();
    }
    const created = await createUserInTransaction(ctx, tx, events, {
      realm,
      email,
      fullName: input.fullName,
      role: found.invitedAs as RoleCode,
      passwordHash,
      // The invitation's channels, plus the default channels only when it asked for them (FL 261).
      defaultChannels: found.includeRealmDefaultSubscriptions,
      channelIds: streamIds,
    });
    if (groupIds.length) {
      await tx.userGroupMembership.createMany({
        data: groupIds.map((userGroupId) => ({ userGroupId, userId: created.user.id })),
        skipDuplicates: true,
      });
    }
    // Other pending invitations to the same address are done with too.
    await tx.invitation.updateMany({
      where: { realmId: realm.id, email, status: InviteStatus.PENDING },
      data: { status: InviteStatus.REVOKED },
    });
    if (invitation) {
      await events.emit(realm.id, invitesChangedEvent({}), [
        ...(await inviteManagerIds(tx, realm.id, invitation.referredById)),
      ]);
    }
    return created;
  });
  if (invitation?.notifyReferrerOnJoin) {
    await notifyReferrer(ctx, {
      realm,
      referredById: invitation.referredById,
      joined: created.user,
    });
  }
  return { user_id: created.user.id, email: created.user.email, api_key: created.apiKey };
}
