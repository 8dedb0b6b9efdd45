import type { Realm, User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import type { Tx } from '../../db/client';
import { lockRow } from '../../db/locks';
import { lockEmail } from './create-user';
import { inTransaction, type EventSink } from '../../events/outbox';
import { Permission, requireAccess } from '../permissions/access';
import { usersWhoCanAccess } from '../permissions/users';
import { normalizeEmail } from './validate';
import { realmUserEvent } from '../../protocol/events/realm-user';
import { avatarUpdate } from './avatar';

/**
 * Within the caller's transaction: gives `target` a new address (login and delivery), refusing
 * one another user of the organization has, and tells who can access the user with the two
 * `realm_user` updates Zulip sends (`delivery_email`, then `new_email`).
 */
export async function applyEmailChange(
  tx: Tx,
  events: EventSink,
  input: { realm: Realm; target: User; newEmail: string; audience: number[] },
): Promise<void> {
  const { realm, target, newEmail, audience } = input;
  if (newEmail === target.deliveryEmail) return;
  // The user's row and the new address held until commit: two changes to one address take turns.
  await lockRow(tx, 'users', target.id);
  await lockEmail(tx, realm.id, newEmail);
  const taken = await tx.user.findFirst({
    where: {
      realmId: realm.id,
      id: { not: target.id },
      OR: [{ email: newEmail }, { deliveryEmail: newEmail }],
    },
    select: { id: true },
  });
  if (taken) throw badRequest(`Email '${newEmail}' already in use`);
  const updated = await tx.user.update({
    where: { id: target.id },
    data: { email: newEmail, deliveryEmail: newEmail },
  });
  await events.emit(
    realm.id,
    realmUserEvent({ op: 'update', person: { user_id: target.id, delivery_email: newEmail } }),
    audience,
  );
  await events.emit(
    realm.id,
    realmUserEvent({ op: 'update', person: { user_id: target.id, new_email: newEmail } }),
    audience,
  );
  // A Gravatar is the address's: it changes with it (Zulip's notify_avatar_url_change).
  if (updated.avatarSource === 'G') {
    await events.emit(
      realm.id,
      realmUserEvent({ op: 'update', person: avatarUpdate(updated) }),
      audience,
    );
  }
}

/**
 * Changes a user's email at once, without a confirmation round trip: an owner holding
 * can_change_user_emails, or (`actor` null) the operator at the command line.
 */
export async function changeEmail(
  ctx: AppContext,
  input: { actor: User | null; realm: Realm; target: User; newEmail: string },
): Promise<User> {
  if (input.actor) {
    await requireAccess(ctx.db, {
      auth: { user: input.actor },
      permission: Permission.UserChangeEmail,
      ids: [input.target.id],
    });
  }
  const newEmail = normalizeEmail(input.newEmail);
  return inTransaction(ctx, async (tx, events) => {
    const audience = await usersWhoCanAccess(tx, input.target);
    await applyEmailChange(tx, events, { ...input, newEmail, audience });
    return tx.user.findUniqueOrThrow({ where: { id: input.target.id } });
  });
}
