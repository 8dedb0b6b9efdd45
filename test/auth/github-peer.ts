import { createHash, randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * GitHub's side of "Log in with GitHub" on loopback, speaking the OAuth web flow and the REST
 * endpoints as GitHub documents them (docs.github.com: "Authorizing OAuth apps", "Users / Emails",
 * "Organizations / Members", "Teams / Members"): GitHub itself cannot be reached from the tests,
 * and this is the peer they can run. The site and the API share one server, the API under
 * `/api/v3` as on GitHub Enterprise Server.
 *
 * Sign-in needs no form: `authorize` approves at once as the account last given to `signInAs`.
 */
export interface GithubAccount {
  login: string;
  name?: string | null;
  emails: { email: string; primary?: boolean; verified: boolean }[];
  orgs?: string[];
  teams?: number[];
}

export interface GithubPeer {
  /** The site's URL (SOCIAL_AUTH_GITHUB_URL). */
  url: string;
  /** The REST API's URL (SOCIAL_AUTH_GITHUB_API_URL). */
  apiUrl: string;
  signInAs(account: GithubAccount): void;
  /** The token endpoint refuses the next code, as GitHub does for a bad or used one. */
  refuseNextCode(): void;
  /** The authorization requests received, newest last. */
  authorizations: URL[];
  close(): Promise<void>;
}

interface Grant {
  account: GithubAccount;
  redirectUri: string;
  challenge: string | null;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => resolve(body));
  });

export async function startGithubPeer(client: { id: string; secret: string }): Promise<GithubPeer> {
  let current: GithubAccount | null = null;
  let refuse = false;
  const grants = new Map<string, Grant>();
  const tokens = new Map<string, { account: GithubAccount }>();
  const authorizations: URL[] = [];

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      authorizations.push(url);
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      if (url.searchParams.get('client_id') !== client.id || !current) {
        res.writeHead(404).end('unknown application');
        return;
      }
      const code = randomBytes(10).toString('hex');
      const challenge = url.searchParams.get('code_challenge');
      grants.set(code, { account: current, redirectUri, challenge });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      const state = url.searchParams.get('state');
      if (state !== null) back.searchParams.set('state', state);
      res.writeHead(302, { Location: back.href }).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const form = new URLSearchParams(await readBody(req));
      const grant = grants.get(form.get('code') ?? '');
      grants.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier');
      const pkceOk =
        grant?.challenge == null ||
        (verifier !== null &&
          createHash('sha256').update(verifier).digest('base64url') === grant.challenge);
      // GitHub answers a refused code with 200 and an `error` field.
      if (
        refuse ||
        !grant ||
        form.get('client_id') !== client.id ||
        form.get('client_secret') !== client.secret ||
        form.get('redirect_uri') !== grant.redirectUri ||
        !pkceOk
      ) {
        refuse = false;
        json(res, 200, {
          error: 'bad_verification_code',
          error_description: 'The code passed is incorrect or expired.',
        });
        return;
      }
      const token = `gho_${randomBytes(18).toString('hex')}`;
      tokens.set(token, { account: grant.account });
      json(res, 200, { access_token: token, token_type: 'bearer', scope: 'user:email' });
      return;
    }
    if (req.method === 'GET' && url.pathname.startsWith('/api/v3/')) {
      const [scheme, token] = (req.headers.authorization ?? '').split(' ');
      const holder = /^(bearer|token)$/i.test(scheme ?? '') ? tokens.get(token ?? '') : undefined;
      if (!holder) {
        json(res, 401, { message: 'Requires authentication' });
        return;
      }
      const { account } = holder;
      const path = url.pathname.slice('/api/v3'.length);
      if (path === '/user') {
        json(res, 200, { login: account.login, id: 1000, name: account.name ?? null });
        return;
      }
      if (path === '/user/emails') {
        json(
          res,
          200,
          account.emails.map((e) => ({ visibility: null, primary: false, ...e })),
        );
        return;
      }
      const org = /^\/orgs\/([^/]+)\/members\/([^/]+)$/.exec(path);
      if (org) {
        const member = org[2] === account.login && (account.orgs ?? []).includes(org[1]);
        res.writeHead(member ? 204 : 404).end();
        return;
      }
      const team = /^\/teams\/(\d+)\/memberships\/([^/]+)$/.exec(path);
      if (team) {
        const member = team[2] === account.login && (account.teams ?? []).includes(+team[1]);
        if (member) json(res, 200, { state: 'active', role: 'member' });
        else json(res, 404, { message: 'Not Found' });
        return;
      }
    }
    json(res, 404, { message: 'Not Found' });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    apiUrl: `${url}/api/v3`,
    signInAs(account) {
      current = account;
    },
    refuseNextCode() {
      refuse = true;
    },
    authorizations,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
