import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { insufficientPermission } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { canCreateMultiuseInvite } from '../permissions/invites';
import { checkInviteTargets, expiryFrom, targetLinks, type InviteTargets } from './invite-rules';
import { inviteManagerIds } from '../permissions/invites';
import { newConfirmationKey, joinUrl } from './confirmation-link';
import { invitesChangedEvent } from '../../protocol/events/invites-changed';

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
        ...targetLinks(targets),
      },
    });
    await events.emit(realm.id, invitesChangedEvent({}), [
      ...(await inviteManagerIds(tx, realm.id, actor.id)),
    ]);
  });
  return joinUrl(ctx, realm, key);
}
