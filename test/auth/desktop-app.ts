import { createDecipheriv } from 'node:crypto';
import { RedirectAgent } from './oidc-peer';

/**
 * What Zulip's desktop app does in its sign-in flow, for the tests and the benchmark: open a
 * sign-in URL inside the app, and take the login token the browser's last page shows.
 */

/** A sign-in URL opened inside the app, whose User-Agent names ZulipElectron. */
export const openInDesktopApp = (url: string): Promise<Response> =>
  fetch(url, {
    redirect: 'manual',
    headers: { 'User-Agent': 'Mozilla/5.0 ZulipElectron/5.12.0 Chrome/126' },
  });

/**
 * The encrypted login token the flow's last page shows, decrypted under the app's key
 * (`desktop_flow_otp`): hex of the 12-byte IV, the AES-256-GCM ciphertext and its tag. Throws
 * when the page shows none or the key is not the one it was made for.
 */
export function desktopLoginToken(page: string, otp: string): string {
  const data = /id="desktop-data"[^>]*value="([0-9a-f]+)"/.exec(page)?.[1];
  if (!data) throw new Error('the page shows no login token');
  const bytes = Buffer.from(data, 'hex');
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(otp, 'hex'), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  return Buffer.concat([decipher.update(bytes.subarray(12, -16)), decipher.final()]).toString();
}

/**
 * The app's last step: the token exchanged at `/accounts/login/subdomain/<token>` for a session
 * of its own (`login`, `me`: the app's `/json/users/me` after it), and the same token tried
 * again from elsewhere (`again`).
 */
export async function desktopAppSignIn(api: string, page: string, otp: string) {
  const token = desktopLoginToken(page, otp);
  const app = new RedirectAgent();
  const login = await app.get(`${api}/accounts/login/subdomain/${token}`);
  const me = await app.get(`${api}/json/users/me`);
  const again = await new RedirectAgent().get(`${api}/accounts/login/subdomain/${token}`);
  return { token, login, me, again };
}
