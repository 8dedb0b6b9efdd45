import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../free-port';

export interface OidcAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface OidcPeer {
  issuer: string;
  /** The account the next sign-in authenticates as. */
  signInAs(account: OidcAccount): Promise<void>;
  /** Alters the ID token of the next token response (see oidc-provider.mjs). */
  tamperNext(mode: 'forged' | 'expired' | 'audience' | 'nonce'): Promise<void>;
  close(): Promise<void>;
}

/** Starts `oidc-provider` (test/auth/oidc-provider.mjs) as its own process on a loopback port. */
export async function startOidcPeer(
  clients: { client_id: string; client_secret: string; redirect_uris: string[] }[],
): Promise<OidcPeer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [path.join(__dirname, 'oidc-provider.mjs')], {
    env: { ...process.env, PORT: String(port), CLIENTS: JSON.stringify(clients), NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const issuer = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /ready (\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`oidc-provider exited ${code}: ${errors}`)));
  });
  return {
    issuer,
    async signInAs(account) {
      const res = await fetch(`${issuer}/test/account`, {
        method: 'POST',
        body: JSON.stringify(account),
      });
      if (res.status !== 204) throw new Error(`oidc-provider refused the account: ${res.status}`);
    },
    async tamperNext(mode) {
      const res = await fetch(`${issuer}/test/tamper`, {
        method: 'POST',
        body: JSON.stringify({ mode }),
      });
      if (res.status !== 204) throw new Error(`oidc-provider refused to tamper: ${res.status}`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A user agent without a browser: follows redirects by hand and keeps cookies per host. */
export class RedirectAgent {
  readonly jar = new Map<string, Map<string, string>>();

  cookies(host: string): Map<string, string> {
    let cookies = this.jar.get(host);
    if (!cookies) this.jar.set(host, (cookies = new Map()));
    return cookies;
  }

  /** One GET; stores the cookies it sets. */
  get(url: string): Promise<Response> {
    return this.send(url);
  }

  /** One form POST, as a browser submits an HTML form (a SAML IdP's, say). */
  post(url: string, form: Record<string, string>): Promise<Response> {
    return this.send(url, new URLSearchParams(form));
  }

  private async send(url: string, form?: URLSearchParams): Promise<Response> {
    const target = new URL(url);
    const cookies = this.cookies(target.host);
    const headers: Record<string, string> = {};
    if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(target, {
      redirect: 'manual',
      headers,
      ...(form ? { method: 'POST', body: form } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*(max-age=0|expires=Thu, 01 Jan 1970)/i.test(a));
      if (expired || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    return res;
  }

  /**
   * Follows redirects from `url` until an answer that is not one, or one to a location `stop`
   * accepts (returned unfollowed). Every hop's URL is kept.
   */
  async follow(
    url: string,
    stop: (location: string) => boolean = (location) => !/^https?:/.test(location),
  ): Promise<{ res: Response; url: string; hops: string[] }> {
    const hops: string[] = [];
    let current = url;
    for (let i = 0; i < 20; i++) {
      hops.push(current);
      const res = await this.get(current);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || location === null) {
        return { res, url: current, hops };
      }
      const next = /^[a-z][a-z0-9+.-]*:/i.test(location)
        ? location
        : new URL(location, current).href;
      if (stop(next)) return { res, url: current, hops: [...hops, next] };
      current = next;
    }
    throw new Error(`too many redirects from ${url}`);
  }
}
