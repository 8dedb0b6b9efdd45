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

export function gravatarHash(value: string): string {
  return createHash('md5').update(value.trim().toLowerCase()).digest('hex');
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
