import type { Db, Tx } from '../../db/client';

export interface ApiRealmDomain {
  domain: string;
  allow_subdomains: boolean;
}

/** `GET /realm/domains` and the `realm_domains` state: every user may read them. */
export async function listRealmDomains(db: Db | Tx, realmId: number): Promise<ApiRealmDomain[]> {
  const rows = await db.realmDomain.findMany({ where: { realmId }, orderBy: { domain: 'asc' } });
  return rows.map((r) => ({ domain: r.domain, allow_subdomains: r.allowSubdomains }));
}
