import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { requireRealmOwner } from '../permissions/roles';
import { realmUserAudience } from '../permissions/users';
import { noEntry } from './realm-domain-errors';
import { realmDomainsEvent } from '../../protocol/events/realm-domains';

/** `PATCH /realm/domains/{domain}`. */
export async function changeRealmDomain(
  ctx: AppContext,
  input: { actor: User; realm: Realm; domain: string; allowSubdomains: boolean },
): Promise<void> {
  const { actor, realm, domain } = input;
  requireRealmOwner(actor);
  await inTransaction(ctx, async (tx, events) => {
    const { count } = await tx.realmDomain.updateMany({
      where: { realmId: realm.id, domain },
      data: { allowSubdomains: input.allowSubdomains },
    });
    if (count === 0) throw noEntry(domain);
    await events.emit(
      realm.id,
      realmDomainsEvent({
        op: 'change',
        realm_domain: { domain, allow_subdomains: input.allowSubdomains },
      }),
      await realmUserAudience(tx, realm.id),
    );
  });
}
