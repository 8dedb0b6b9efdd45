import { randomBytes } from 'node:crypto';
import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest, insufficientPermission, invitationFailed } from '../../http/errors';
import type { AppContext } from '../context';
import { enqueueInvitationEmail } from '../email/enqueue-email';
import { realmUrl } from '../realms/realm-url';
import { normalizeEmail } from '../users/validate';
import {
  canCreateMultiuseInvite,
  canInviteByEmail,
  checkInviteTargets,
  expiryFrom,
  inviteManagers,
  type InviteTargets,
} from './invite-rules';

export const newConfirmationKey = () => randomBytes(12).toString('hex');

/** Splits `invitee_emails` on commas and newlines; accepts `Name <address>` entries. */
export function parseInviteeEmails(raw: string): string[] {
  const out = new Set<string>();
  for (const part of raw.split(/[,\n]/)) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const angle = /<([^>]+)>\s*$/.exec(trimmed);
    out.add(angle ? angle[1].trim() : trimmed);
  }
  return [...out];
}

export interface InviteUsersInput {
  actor: User;
  realm: Realm;
  inviteeEmails: string;
  /** null: never expires; undefined: the server default. */
  expiresInMinutes: number | null | undefined;
  targets: InviteTargets;
  notifyReferrerOnJoin: boolean;
}

/**
 * `POST /invites`: one invitation per new address. Addresses with accounts are reported in an
 * INVITATION_FAILED error after the others were invited (or, when nobody could be, instead).
 */
export async function inviteUsers(ctx: AppContext, input: InviteUsersInput): Promise<void> {
  const { actor, realm, targets } = input;
  if (!(await canInviteByEmail(ctx.db, actor, realm))) throw insufficientPermission();
  const raw = parseInviteeEmails(input.inviteeEmails);
  if (raw.length === 0) throw badRequest('You must specify at least one email address.');
  await checkInviteTargets(ctx, actor, realm, targets);

  const invalid: [string, string, boolean][] = [];
  const emails: string[] = [];
  for (const email of raw) {
    try {
      emails.push(normalizeEmail(email));
    } catch {
      invalid.push([email, 'Invalid address.', false]);
    }
  }
  if (invalid.length) {
    throw invitationFailed(
      "Some emails did not validate, so we didn't send any invitations.",
      invalid,
      false,
    );
  }
  const existing = await ctx.db.user.findMany({
    where: {
      realmId: realm.id,
      OR: [{ email: { in: emails } }, { deliveryEmail: { in: emails } }],
    },
    select: { email: true, deliveryEmail: true, isActive: true },
  });
  const skipped: [string, string, boolean][] = [];
  const fresh: string[] = [];
  for (const email of emails) {
    const user = existing.find((u) => u.email === email || u.deliveryEmail.toLowerCase() === email);
    if (!user) fresh.push(email);
    else if (user.isActive) skipped.push([email, 'Already has an account.', false]);
    else skipped.push([email, 'Account has been deactivated.', true]);
  }
  if (fresh.length === 0) {
    throw invitationFailed("We weren't able to invite anyone.", skipped, false);
  }

  const now = new Date();
  const minutes =
    input.expiresInMinutes === undefined ? ctx.config.inviteExpiryMinutes : input.expiresInMinutes;
  const ids = await inTransaction(ctx, async (tx, events) => {
    const created: number[] = [];
    for (const email of fresh) {
      const invitation = await tx.invitation.create({
        data: {
          realmId: realm.id,
          email,
          referredById: actor.id,
          invitedAs: targets.role,
          expiresAt: expiryFrom(minutes, now),
          notifyReferrerOnJoin: input.notifyReferrerOnJoin,
          includeRealmDefaultSubscriptions: targets.includeRealmDefaultSubscriptions,
          confirmationKey: newConfirmationKey(),
          streams: { create: targets.streamIds.map((streamId) => ({ streamId })) },
          groups: { create: targets.groupIds.map((userGroupId) => ({ userGroupId })) },
        },
      });
      created.push(invitation.id);
    }
    await events.emit(
      realm.id,
      { type: 'invites_changed' },
      await inviteManagers(tx, realm.id, actor.id),
    );
    return created;
  });
  for (const id of ids) await enqueueInvitationEmail(ctx, id);
  if (skipped.length) {
    throw invitationFailed(
      "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      skipped,
      true,
    );
  }
}

export const joinUrl = (ctx: AppContext, realm: Realm, key: string) =>
  `${realmUrl(realm.stringId, ctx.config)}/join/${key}/`;

/** `POST /invites/multiuse`: a reusable invitation link. */
export async function createMultiuseInvite(
  ctx: AppContext,
  input: {
    actor: User;
    realm: Realm;
    expiresInMinutes: number | null | undefined;
    targets: InviteTargets;
  },
): Promise<string> {
  const { actor, realm, targets } = input;
  if (!(await canCreateMultiuseInvite(ctx.db, actor, realm))) {
    throw insufficientPermission('Insufficient permission');
  }
  await checkInviteTargets(ctx, actor, realm, targets);
  const minutes =
    input.expiresInMinutes === undefined ? ctx.config.inviteExpiryMinutes : input.expiresInMinutes;
  const key = newConfirmationKey();
  await inTransaction(ctx, async (tx, events) => {
    await tx.multiuseInvite.create({
      data: {
        realmId: realm.id,
        referredById: actor.id,
        invitedAs: targets.role,
        expiresAt: expiryFrom(minutes, new Date()),
        includeRealmDefaultSubscriptions: targets.includeRealmDefaultSubscriptions,
        confirmationKey: key,
        streams: { create: targets.streamIds.map((streamId) => ({ streamId })) },
        groups: { create: targets.groupIds.map((userGroupId) => ({ userGroupId })) },
      },
    });
    await events.emit(
      realm.id,
      { type: 'invites_changed' },
      await inviteManagers(tx, realm.id, actor.id),
    );
  });
  return joinUrl(ctx, realm, key);
}
