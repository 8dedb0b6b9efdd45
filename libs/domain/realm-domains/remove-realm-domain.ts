import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { requireRealmOwner } from '../permissions/roles';
import { realmUserAudience } from '../permissions/users';
import { noEntry } from './realm-domain-errors';
import { realmDomainsEvent } from '../../protocol/events/realm-domains';
import { realmEvent } from '../../protocol/events/realm';

/**
 * `DELETE /realm/domains/{domain}`. Removing the last domain also lifts
 * `emails_restricted_to_domains`, which would otherwise refuse every address (as Zulip does).
 */
export async function removeRealmDomain(
  ctx: AppContext,
  input: { actor: User; realm: Realm; domain: string },
): Promise<void> {
  const { actor, realm, domain } = input;
  requireRealmOwner(actor);
  await inTransaction(ctx, async (tx, events) => {
    const { count } = await tx.realmDomain.deleteMany({ where: { realmId: realm.id, domain } });
    if (count === 0) throw noEntry(domain);
    const audience = await realmUserAudience(tx, realm.id);
    const left = await tx.realmDomain.count({ where: { realmId: realm.id } });
    if (left === 0) {
      const { count: lifted } = await tx.realm.updateMany({
        where: { id: realm.id, emailsRestrictedToDomains: true },
        data: { emailsRestrictedToDomains: false },
      });
      if (lifted) {
        await events.emit(
          realm.id,
          realmEvent({ op: 'update', property: 'emails_restricted_to_domains', value: false }),
          audience,
        );
      }
    }
    await events.emit(realm.id, realmDomainsEvent({ op: 'remove', domain }), audience);
  });
}
