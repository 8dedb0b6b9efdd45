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

/** The sign-in buttons' methods, as server_settings lists them for this organization. */
export function useExternalMethods(): ExternalMethod[] {
  const [methods, setMethods] = useState<ExternalMethod[]>([]);
  useEffect(() => {
    void call<{ external_authentication_methods?: ExternalMethod[] }>(
      'GET',
      '/server_settings',
      {},
      { base: '/api/v1' },
    )
      .then((s) => setMethods(s.external_authentication_methods ?? []))
      .catch(() => undefined);
  }, []);
  return methods;
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
