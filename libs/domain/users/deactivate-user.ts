import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { lockRow } from '../../db/locks';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { writeDeactivationEmail } from '../email/enqueue-email';
import { Permission, requireAccess } from '../permissions/access';
import { isOnlyOwner, realmUserAudience, usersWhoCanAccess } from '../permissions/users';
import { INACCESSIBLE_USER_NAME } from './user-access';
import { setActive } from './set-active';
import { realmUserEvent } from '../../protocol/events/realm-user';
import { realmBotEvent } from '../../protocol/events/realm-bot';
import { botAdministratorIds } from '../permissions/bots';

export interface DeactivateUserInput {
  /** null: the operator, at the command line. */
  actor: User | null;
  realm: Realm;
  target: User;
  /** null: no email; '': an email without custom text; otherwise the custom text. */
  notificationComment: string | null;
  /**
   * `sync-ldap-users` found the user no longer in the directory: a later sync that finds them
   * again reactivates them (Zulip's sync_ldap_user_data).
   */
  leftDirectory?: boolean;
}

/**
 * Deactivates a user (an administrator acting on someone, or a user on themselves) and the bots
 * they own. The organization keeps at least one owner. Users who can access the user get a
 * `realm_user` update with `is_active: false`; a notification email goes out when asked for.
 */
export async function deactivateUser(ctx: AppContext, input: DeactivateUserInput): Promise<void> {
  const { actor, realm, target } = input;
  // null: the operator, at the command line, who may.
  if (actor) {
    await requireAccess(ctx.db, {
      auth: { user: actor },
      permission: Permission.UserDeactivate,
      ids: [target.id],
    });
  }
  if (!target.isActive) throw badRequest('User is already deactivated');
  await inTransaction(ctx, async (tx, events) => {
    // The user's row first (setActive locks it and the bots again, in id order).
    await lockRow(tx, 'users', target.id, 'FOR UPDATE');
    if (await isOnlyOwner(tx, target)) {
      throw badRequest('Cannot deactivate the only organization owner');
    }
    const accessedBefore = await usersWhoCanAccess(tx, target);
    const bots = await tx.user.findMany({
      where: { realmId: realm.id, botOwnerId: target.id, isActive: true },
      select: { id: true },
    });
    await setActive(tx, [target.id, ...bots.map((b) => b.id)], false);
    if (input.leftDirectory) {
      await tx.user.update({ where: { id: target.id }, data: { ldapSyncDeactivated: true } });
    }
    const accessing = await usersWhoCanAccess(tx, target);
    await events.emit(
      realm.id,
      realmUserEvent({ op: 'update', person: { user_id: target.id, is_active: false } }),
      accessing,
    );
    // Guests who saw the user only through a shared channel lose access (Zulip: op remove); the
    // user's bots, deactivated with them, are no audience.
    const still = new Set([target.id, ...bots.map((b) => b.id), ...accessing]);
    await events.emit(
      realm.id,
      realmUserEvent({
        op: 'remove',
        person: { user_id: target.id, full_name: INACCESSIBLE_USER_NAME },
      }),
      accessedBefore.filter((id) => !still.has(id)),
    );
    if (bots.length) {
      // Bots are accessible to everyone; those who administer them list them in realm_bots.
      const everyone = await realmUserAudience(tx, realm.id);
      const administrators = [...(await botAdministratorIds(tx, realm.id, target.id))];
      for (const bot of bots) {
        await events.emit(
          realm.id,
          realmUserEvent({ op: 'update', person: { user_id: bot.id, is_active: false } }),
          everyone,
        );
        await events.emit(
          realm.id,
          realmBotEvent({ op: 'update', bot: { user_id: bot.id, is_active: false } }),
          administrators,
        );
      }
    }
    await writeDeactivationEmail(tx, target.id, input.notificationComment);
  });
}
