import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';

/** One of server_settings' `external_authentication_methods`. */
export interface ExternalMethod {
  name: string;
  display_name: string;
  display_icon: string | null;
  login_url: string;
  signup_url: string;
}

/** What the sign-in form needs of server_settings. */
export interface SignInSettings {
  /** The sign-in buttons' methods, as server_settings lists them for this organization. */
  external: ExternalMethod[];
  /**
   * Zulip's `require_email_format_usernames`: false where LDAP signs people in with their uid
   * (LDAP_APPEND_DOMAIN, or an email attribute), so the field takes other names than addresses.
   */
  emailUsernames: boolean;
}

export function useSignInSettings(): SignInSettings {
  const [settings, setSettings] = useState<SignInSettings>({ external: [], emailUsernames: true });
  useEffect(() => {
    void call<{
      external_authentication_methods?: ExternalMethod[];
      require_email_format_usernames?: boolean;
    }>('GET', '/server_settings', {}, { base: '/api/v1' })
      .then((s) =>
        setSettings({
          external: s.external_authentication_methods ?? [],
          emailUsernames: s.require_email_format_usernames !== false,
        }),
      )
      .catch(() => undefined);
  }, []);
  return settings;
}

/**
 * The method's sign-in URL, coming back to where the page is (`next`, a path on this site). Only
 * a path is followed: the page never sends the browser to a URL another server chose.
 */
export function loginHref(method: ExternalMethod): string | null {
  if (!method.login_url.startsWith('/') || method.login_url.startsWith('//')) return null;
  const next = `/${location.hash}`;
  return `${method.login_url}?next=${encodeURIComponent(next)}`;
}

/** Icons load only from this site (the page's CSP allows no other image source). */
export const ownIcon = (icon: string | null) =>
  icon && icon.startsWith('/') && !icon.startsWith('//') ? icon : null;
