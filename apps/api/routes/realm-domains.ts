import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { addRealmDomain } from '../../../libs/domain/realm-domains/add-realm-domain';
import { changeRealmDomain } from '../../../libs/domain/realm-domains/change-realm-domain';
import { listRealmDomains } from '../../../libs/domain/realm-domains/list-realm-domains';
import { removeRealmDomain } from '../../../libs/domain/realm-domains/remove-realm-domain';
import { authed } from '../../../libs/http/route';

const domainSpec = { domain: P.string().required() };
const allowSubdomains = { allow_subdomains: P.bool().required() };

/** The email domains an organization's new users may have (Zulip's realm domains). */
export function realmDomainRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/realm/domains',
    authed(ctx, {}, async ({ realm }) => ({ domains: await listRealmDomains(ctx.db, realm.id) })),
  );
  router.post(
    '/realm/domains',
    authed(ctx, { ...domainSpec, ...allowSubdomains }, async ({ user, realm, params }) => ({
      new_domain: await addRealmDomain(ctx, {
        actor: user,
        realm,
        domain: params.domain,
        allowSubdomains: params.allow_subdomains,
      }),
    })),
  );
  router.patch(
    '/realm/domains/:domain',
    authed(ctx, { ...domainSpec, ...allowSubdomains }, async ({ user, realm, params }) => {
      await changeRealmDomain(ctx, {
        actor: user,
        realm,
        domain: params.domain,
        allowSubdomains: params.allow_subdomains,
      });
    }),
  );
  router.delete(
    '/realm/domains/:domain',
    authed(ctx, domainSpec, async ({ user, realm, params }) => {
      await removeRealmDomain(ctx, { actor: user, realm, domain: params.domain });
    }),
  );
}
