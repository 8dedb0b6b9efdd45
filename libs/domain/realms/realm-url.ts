import { createHash } from 'node:crypto';
import type { Config } from '../../core/config';

export function realmHost(stringId: string, config: Pick<Config, 'externalHost'>): string {
  return stringId ? `${stringId}.${config.externalHost}` : config.externalHost;
}

/** The organization's canonical URL (`realm_url`, formerly `realm_uri`). */
export function realmUrl(
  stringId: string,
  config: Pick<Config, 'externalHost' | 'externalScheme'>,
): string {
  return `${config.externalScheme}://${realmHost(stringId, config)}`;
}

const GRAVATAR_HASHES_KEPT = 10_000;
const gravatarHashes = new Map<string, string>();

/**
 * Every `users/me`, `server_settings` and user list names avatars by this hash, so the last
 * hashes computed are kept (a bounded set, emptied when full).
 */
export function gravatarHash(value: string): string {
  let hash = gravatarHashes.get(value);
  if (hash === undefined) {
    hash = createHash('md5').update(value.trim().toLowerCase()).digest('hex');
    if (gravatarHashes.size >= GRAVATAR_HASHES_KEPT) gravatarHashes.clear();
    gravatarHashes.set(value, hash);
  }
  return hash;
}

/** Zulip's default organization icon: an identicon of the organization ID. */
export function realmIconUrl(realm: {
  id: number;
  iconSource: string;
  iconVersion: number;
}): string {
  if (realm.iconSource === 'U')
    return `/user_avatars/${realm.id}/realm/icon.png?version=${realm.iconVersion}`;
  return `https://secure.gravatar.com/avatar/${gravatarHash(String(realm.id))}?d=identicon&version=${realm.iconVersion}`;
}
