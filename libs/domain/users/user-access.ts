import type { Config } from '../../core/config';
import { emailDomainFor } from '../realms/email-domain';
import { realmHost } from '../realms/realm-url';
import { at } from '../../core/at';

export { INACCESSIBLE_USER_NAME, inaccessibleUser } from '../../protocol/records';

/**
 * Zulip's get_bot_domain (`realm_bot_domain`): the domain of the addresses the server makes up,
 * bots' and placeholders' (`user{id}@domain`). The organization's host when it has no port,
 * otherwise the server's host name (Zulip's FAKE_EMAIL_DOMAIN default); either only when it can
 * end an email address, else FAKE_EMAIL_DOMAIN.
 */
export function fakeEmailDomain(
  realm: { stringId: string },
  config: Pick<Config, 'externalHost' | 'fakeEmailDomain'>,
): string {
  const host = realmHost(realm.stringId, config);
  return emailDomainFor(host.includes(':') ? at(config.externalHost.split(':'), 0) : host, config);
}
