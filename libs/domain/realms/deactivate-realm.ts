import type { Realm } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { inTransaction } from '../../events/outbox';
import { realmUserAudience } from '../permissions/users';
import { realmEvent } from '../../protocol/events/realm';

/**
 * The operator closes an organization (Zulip's do_deactivate_realm): nobody logs in or calls the
 * API any more (credentials are refused with REALM_DEACTIVATED), and every connected client is
 * told with a `realm` `deactivated` event. Nothing is deleted; reactivation restores it as it was.
 */
export async function deactivateRealm(ctx: AppContext, realm: Realm): Promise<void> {
  if (realm.deactivated) throw badRequest('Organization is already deactivated');
  await inTransaction(ctx, async (tx, events) => {
    const audience = await realmUserAudience(tx, realm.id);
    await tx.realm.update({ where: { id: realm.id }, data: { deactivated: true } });
    await events.emit(realm.id, realmEvent({ op: 'deactivated', realm_id: realm.id }), audience);
  });
}

/** Reopens a deactivated organization (Zulip's do_reactivate_realm). */
export async function reactivateRealm(ctx: AppContext, realm: Realm): Promise<void> {
  if (!realm.deactivated) throw badRequest('Organization is already active');
  await ctx.db.realm.update({ where: { id: realm.id }, data: { deactivated: false } });
}
