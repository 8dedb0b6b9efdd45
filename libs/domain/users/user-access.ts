import type { Config } from '../../core/config';
import { emailDomainFor } from '../realms/email-domain';
import { realmHost } from '../realms/realm-url';
import type { ApiUser } from './format-user';
import { Role } from './roles';

/** The name Zulip gives a user the viewer cannot access. */
export const INACCESSIBLE_USER_NAME = 'Unknown user';

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

/**
 * What a guest sees of a user they cannot access (in `GET /users`, `realm_users` and `realm_user`
 * add events): Zulip's fixed "Unknown user" record whose only variable content is the ID.
 */
export function inaccessibleUser(userId: number, emailDomain: string): ApiUser {
  return {
    email: `user${userId}@${emailDomain}`,
    user_id: userId,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    role: Role.MEMBER,
    is_bot: false,
    full_name: INACCESSIBLE_USER_NAME,
    timezone: '',
    is_active: true,
    date_joined: '1970-01-01T00:00:00+00:00',
    delivery_email: null,
    avatar_url: '/static/images/unknown-user-avatar.png',
    profile_data: {},
  };
}
