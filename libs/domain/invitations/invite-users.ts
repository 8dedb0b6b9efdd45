import type { Realm, User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { inTransaction } from '../../events/outbox';
import { badRequest, insufficientPermission, invitationFailed } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { writeInvitationEmails } from '../email/enqueue-email';
import { canInviteByEmail } from '../permissions/invites';
import { INVITE_REFUSAL_TEXT, realmEmailRule } from '../realm-domains/email-restrictions';
import { normalizeEmail } from '../users/validate';
import { checkDailyInviteLimit } from './invite-limit';
import { checkInviteTargets, expiryFrom, targetLinks, type InviteTargets } from './invite-rules';
import { inviteManagerIds } from '../permissions/invites';
import { newConfirmationKey } from './confirmation-link';
import { invitesChangedEvent } from '../../protocol/events/invites-changed';
import { at } from '../../core/at';

/** Splits `invitee_emails` on commas and newlines; accepts `Name <address>` entries. */
export function parseInviteeEmails(raw: string): string[] {
  const out = new Set<string>();
  for (const part of raw.split(/[,\n]/)) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const angle = /<([^>]+)>\s*$/.exec(trimmed);
    out.add(angle ? at(angle, 1).trim() : trimmed);
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

type InviteError = [email: string, msg: string, deactivated: boolean];

/**
 * Sorts addresses into new ones and those with accounts here. Any address that is malformed or
 * that the organization does not allow (realm domains, disposable mail) fails the whole request,
 * listing those problems and the accounts found; so does a request that would invite nobody.
 */
async function screenInvitees(
  tx: Tx,
  realm: Realm,
  raw: string[],
): Promise<{ fresh: string[]; skipped: InviteError[] }> {
  const allowed = await realmEmailRule(tx, realm);
  const invalid: InviteError[] = [];
  const emails: string[] = [];
  for (const email of raw) {
    let normalized: string;
    try {
      normalized = normalizeEmail(email);
    } catch {
      invalid.push([email, 'Invalid address.', false]);
      continue;
    }
    const refusal = allowed(normalized);
    if (refusal) invalid.push([email, INVITE_REFUSAL_TEXT[refusal], false]);
    else if (!emails.includes(normalized)) emails.push(normalized);
  }
  const existing = await tx.user.findMany({
    where: {
      realmId: realm.id,
      OR: [{ email: { in: emails } }, { deliveryEmail: { in: emails } }],
    },
    select: { email: true, deliveryEmail: true, isActive: true },
  });
  const skipped: InviteError[] = [];
  const fresh: string[] = [];
  for (const email of emails) {
    const user = existing.find((u) => u.email === email || u.deliveryEmail.toLowerCase() === email);
    if (!user) fresh.push(email);
    else if (user.isActive) skipped.push([email, 'Already has an account.', false]);
    else skipped.push([email, 'Account has been deactivated.', true]);
  }
  if (invalid.length) {
    throw invitationFailed(
      "Some emails did not validate, so we didn't send any invitations.",
      [...invalid, ...skipped],
      false,
    );
  }
  if (fresh.length === 0) {
    throw invitationFailed("We weren't able to invite anyone.", skipped, false);
  }
  return { fresh, skipped };
}

/**
 * `POST /invites`: one invitation per new address, within the organization's daily limit.
 * Addresses with accounts are reported in an INVITATION_FAILED error after the others were
 * invited (or, when nobody could be, instead).
 */
export async function inviteUsers(ctx: AppContext, input: InviteUsersInput): Promise<void> {
  const { actor, realm, targets } = input;
  if (!(await canInviteByEmail(ctx.db, actor, realm))) throw insufficientPermission();
  const raw = parseInviteeEmails(input.inviteeEmails);
  if (raw.length === 0) throw badRequest('You must specify at least one email address.');
  await checkInviteTargets(ctx, actor, realm, targets);

  const now = new Date();
  const minutes =
    input.expiresInMinutes === undefined ? ctx.config.inviteExpiryMinutes : input.expiresInMinutes;
  const skipped = await inTransaction(ctx, async (tx, events) => {
    // As in Zulip, the limit counts every address asked for and is checked before the addresses.
    await checkDailyInviteLimit(tx, ctx.config, realm.id, raw.length);
    const { fresh, skipped } = await screenInvitees(tx, realm, raw);
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
          ...targetLinks(targets),
        },
      });
      created.push(invitation.id);
    }
    await writeInvitationEmails(tx, created);
    await events.emit(realm.id, invitesChangedEvent({}), [
      ...(await inviteManagerIds(tx, realm.id, actor.id)),
    ]);
    return skipped;
  });
  if (skipped.length) {
    throw invitationFailed(
      "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      skipped,
      true,
    );
  }
}
