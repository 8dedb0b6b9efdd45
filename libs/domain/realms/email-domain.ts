import Joi from 'joi';
import type { Config } from '../../core/config';

// A DNS name with a dot whose last label is not a number: "127.0.0.1" and "localhost" fail.
const emailHost = Joi.string().domain({ tlds: false, minDomainSegments: 2 });

/**
 * The domain of an address the server makes up (bots, system bots, placeholders): `host` without
 * its port when it can end an email address, otherwise FAKE_EMAIL_DOMAIN (Zulip's
 * get_fake_email_domain), so a server reached at an IP address can still create bots.
 */
export function emailDomainFor(host: string, config: Pick<Config, 'fakeEmailDomain'>): string {
  const name = host.replace(/:\d+$/, '');
  return emailHost.validate(name).error ? config.fakeEmailDomain : name;
}
