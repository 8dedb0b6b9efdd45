import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { requireRealmOwner } from '../permissions/roles';
import { realmUserAudience } from '../permissions/users';
import { domainProblem } from './validate-domain';
import { realmDomainsEvent } from '../../protocol/events/realm-domains';

/** `POST /realm/domains`; returns Zulip's `new_domain` pair `[id, domain]`. */
export async function addRealmDomain(
  ctx: AppContext,
  input: { actor: User; realm: Realm; domain: string; allowSubdomains: boolean },
): Promise<[number, string]> {
  const { actor, realm } = input;
  requireRealmOwner(actor);
  const domain = input.domain.trim().toLowerCase();
  const problem = domainProblem(domain);
  if (problem) throw badRequest(`Invalid domain: ${problem}`);
  return inTransaction(ctx, async (tx, events) => {
    // ON CONFLICT DO NOTHING: a concurrent add of the same domain gets the error, not a crash.
    const [row] = await tx.realmDomain.createManyAndReturn({
      data: [{ realmId: realm.id, domain, allowSubdomains: input.allowSubdomains }],
      skipDuplicates: true,
    });
    if (!row) throw badRequest(`The domain ${domain} is already a part of your organization.`);
    await events.emit(
      realm.id,
      realmDomainsEvent({
        op: 'add',
        realm_domain: { domain: row.domain, allow_subdomains: row.allowSubdomains },
      }),
      await realmUserAudience(tx, realm.id),
    );
    return [row.id, row.domain];
  });
}
