import type { Realm, User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { requireRealmOwner } from '../permissions/roles';
import { realmUserAudience } from '../permissions/users';
import { domainProblem } from './validate-domain';

export interface ApiRealmDomain {
  domain: string;
  allow_subdomains: boolean;
}

/** `GET /realm/domains` and the `realm_domains` state: every user may read them. */
export async function listRealmDomains(db: Db | Tx, realmId: number): Promise<ApiRealmDomain[]> {
  const rows = await db.realmDomain.findMany({ where: { realmId }, orderBy: { domain: 'asc' } });
  return rows.map((r) => ({ domain: r.domain, allow_subdomains: r.allowSubdomains }));
}

const noEntry = (domain: string) => badRequest(`No entry found for domain ${domain}.`);

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
      {
        type: 'realm_domains',
        op: 'add',
        realm_domain: { domain: row.domain, allow_subdomains: row.allowSubdomains },
      },
      await realmUserAudience(tx, realm.id),
    );
    return [row.id, row.domain];
  });
}

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
      {
        type: 'realm_domains',
        op: 'change',
        realm_domain: { domain, allow_subdomains: input.allowSubdomains },
      },
      await realmUserAudience(tx, realm.id),
    );
  });
}

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
          {
            type: 'realm',
            op: 'update',
            property: 'emails_restricted_to_domains',
            value: false,
          },
          audience,
        );
      }
    }
    await events.emit(realm.id, { type: 'realm_domains', op: 'remove', domain }, audience);
  });
}
