import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { Permission, requireAccess } from '../permissions/access';
import { usersWhoCanAccess } from '../permissions/users';
import { setActive } from './set-active';
import { realmUserEvent } from '../../protocol/events/realm-user';
import { realmBotEvent } from '../../protocol/events/realm-bot';
import { botAdministratorIds } from '../permissions/bots';
import { userGroupEvent } from '../../protocol/events/user-group';
import type { Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { emitPeerAdd } from '../subscriptions/peer-events';
import { realmUserIds } from '../groups/access-group';
import { RecipientType } from '../recipients';

/**
 * `POST /users/{user_id}/reactivate`: an administrator (or, with `actor` null, the operator)
 * restores a deactivated user.
 */
export async function reactivateUser(
  ctx: AppContext,
  input: { actor: User | null; realm: Realm; target: User },
): Promise<void> {
  const { actor, realm, target } = input;
  if (actor) {
    await requireAccess(ctx.db, {
      auth: { user: actor },
      permission: Permission.UserAdminister,
      ids: [target.id],
    });
  }
  if (target.isActive) throw badRequest('User is already active');
  if (target.isBot && target.botOwnerId !== null) {
    const owner = await ctx.db.user.findUnique({ where: { id: target.botOwnerId } });
    if (owner && !owner.isActive) throw badRequest('Bot owner is deactivated');
  }
  await inTransaction(ctx, async (tx, events) => {
    await setActive(tx, [target.id], true);
    await events.emit(
      realm.id,
      realmUserEvent({ op: 'update', person: { user_id: target.id, is_active: true } }),
      await usersWhoCanAccess(tx, target),
    );
    if (target.isBot) {
      // Those who administer the bot list it in realm_bots, where it is active again.
      await events.emit(
        realm.id,
        realmBotEvent({ op: 'update', bot: { user_id: target.id, is_active: true } }),
        [...(await botAdministratorIds(tx, realm.id, target.botOwnerId))],
      );
    }
    await emitReturnToChannelsAndGroups(tx, events, realm.id, target.id);
  });
}

/**
 * Clients dropped a deactivated user from subscriber lists and groups (as Zulip's do): the
 * reactivated user's channels and groups get them back with peer_add and add_members events.
 */
async function emitReturnToChannelsAndGroups(
  tx: Tx,
  events: EventSink,
  realmId: number,
  userId: number,
): Promise<void> {
  const subs = await tx.subscription.findMany({
    where: { userId, active: true, recipient: { type: RecipientType.STREAM } },
    select: { recipientId: true },
  });
  const streams = await tx.stream.findMany({
    where: { recipientId: { in: subs.map((s) => s.recipientId) } },
  });
  await emitPeerAdd(
    tx,
    events,
    realmId,
    streams,
    subs.map((s) => ({ userId, recipientId: s.recipientId })),
  );
  const memberships = await tx.userGroupMembership.findMany({
    where: { userId, userGroup: { named: true } },
    select: { userGroupId: true },
    orderBy: { userGroupId: 'asc' },
  });
  if (!memberships.length) return;
  const audience = await realmUserIds(tx, realmId);
  for (const { userGroupId } of memberships) {
    await events.emit(
      realmId,
      userGroupEvent({ op: 'add_members', group_id: userGroupId, user_ids: [userId] }),
      audience,
    );
  }
}
