import type { Db } from '../../db/client';
import type { Realm } from '../../../generated/prisma/client';

/**
 * The subdomain a Host header names below the server's external host: '' for the external host
 * itself, null for a host outside it (an IP address, another name), which the server still serves.
 */
export function subdomainOf(host: string | undefined, externalHost: string): string | null {
  if (!host) return null;
  const h = host.toLowerCase();
  const stripPort = (s: string) => s.replace(/:\d+$/, '');
  if (h === externalHost || stripPort(h) === stripPort(externalHost)) return '';
  const hostAndRoot: [string, string][] = [
    [h, externalHost],
    [stripPort(h), stripPort(externalHost)],
  ];
  for (const [candidate, root] of hostAndRoot) {
    if (candidate.endsWith(`.${root}`)) return candidate.slice(0, -(root.length + 1));
  }
  return null;
}

/**
 * Which organization a request is for. With one organization any host reaches it, so a single
 * server needs no DNS setup; with several they are told apart by subdomain, and a host that names
 * none of them reaches the root organization (subdomain '') if there is one.
 */
export async function realmForHost(
  db: Db,
  host: string | undefined,
  externalHost: string,
): Promise<Realm | null> {
  const subdomain = subdomainOf(host, externalHost);
  if (subdomain) {
    const realm = await db.realm.findUnique({ where: { stringId: subdomain } });
    if (realm) return realm;
  }
  const root = await db.realm.findUnique({ where: { stringId: '' } });
  if (root) return root;
  const [only, ...others] = await db.realm.findMany({ take: 2 });
  return only && others.length === 0 ? only : null;
}
