import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import {
  addRealmDomain,
  changeRealmDomain,
  listRealmDomains,
  removeRealmDomain,
} from '../../../libs/domain/realm-domains/manage-realm-domains';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

const domainSpec = { domain: P.string(Joi.string().allow('').required()) };
const allowSubdomains = { allow_subdomains: P.bool(Joi.boolean().required()) };

interface DomainParams {
  domain: string;
  allow_subdomains: boolean;
}

/** The email domains an organization's new users may have (Zulip's realm domains). */
export function realmDomainRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/realm/domains',
    authed(ctx, {}, async ({ realm }) => ({ domains: await listRealmDomains(ctx.db, realm.id) })),
  );
  router.post(
    '/realm/domains',
    authed<DomainParams>(
      ctx,
      { ...domainSpec, ...allowSubdomains },
      async ({ user, realm, params }) => ({
        new_domain: await addRealmDomain(ctx, {
          actor: user,
          realm,
          domain: params.domain,
          allowSubdomains: params.allow_subdomains,
        }),
      }),
    ),
  );
  router.patch(
    '/realm/domains/:domain',
    authed<DomainParams>(
      ctx,
      { ...domainSpec, ...allowSubdomains },
      async ({ user, realm, params }) => {
        await changeRealmDomain(ctx, {
          actor: user,
          realm,
          domain: params.domain,
          allowSubdomains: params.allow_subdomains,
        });
      },
    ),
  );
  router.delete(
    '/realm/domains/:domain',
    authed<{ domain: string }>(ctx, domainSpec, async ({ user, realm, params }) => {
      await removeRealmDomain(ctx, { actor: user, realm, domain: params.domain });
    }),
  );
}
