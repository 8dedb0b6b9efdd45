import { listRealmDomains } from '../../realm-domains/list-realm-domains';
import type { StateProvider } from './types';

/** `realm_domains`: the email domains the organization's new users may have. */
export const realmDomainsState: StateProvider = {
  eventTypes: ['realm_domains'],
  async fetch({ ctx, realm }) {
    return { realm_domains: await listRealmDomains(ctx.db, realm.id) };
  },
};
