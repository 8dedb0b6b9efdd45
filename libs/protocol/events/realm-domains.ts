import { plainFormatter, type EventFields } from '../formatter';

/** `realm_domains` events. */
export type RealmDomainsEvent =
  | { type: 'realm_domains'; op: 'add' | 'change'; realm_domain: RealmDomain }
  | { type: 'realm_domains'; op: 'remove'; domain: string };

export interface RealmDomain {
  domain: string;
  allow_subdomains: boolean;
}

export const realmDomainsEvent = (fields: EventFields<RealmDomainsEvent>): RealmDomainsEvent => ({
  ...fields,
  type: 'realm_domains',
});

export const realmDomainsFormatter = plainFormatter<RealmDomainsEvent>();
