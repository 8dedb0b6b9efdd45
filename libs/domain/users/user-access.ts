import type { Config } from '../../core/config';
import { emailDomainFor } from '../realms/email-domain';
import { realmHost } from '../realms/realm-url';

export { INACCESSIBLE_USER_NAME, inaccessibleUser } from '../../protocol/records';

/**
 * The domain of placeholder addresses (`user{id}@domain`): the organization's host when it has no
 * port, otherwise the server's host name (Zulip's FAKE_EMAIL_DOMAIN default); either only when it
 * can end an email address, else FAKE_EMAIL_DOMAIN.
 */
export function fakeEmailDomain(
  realm: { stringId: string },
  config: Pick<Config, 'externalHost' | 'fakeEmailDomain'>,
): string {
  const host = realmHost(realm.stringId, config);
  return emailDomainFor(host.includes(':') ? config.externalHost.split(':')[0] : host, config);
}
