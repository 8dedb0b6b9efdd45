import type * as Oidc from 'openid-client' with { 'resolution-mode': 'import' };
import type { GithubConfig } from '../../core/config';
import type { AppContext } from '../../core/context';
import { externalAuthRefused, type ExternalIdentity } from './external-login';
import { saveFlow, type ExternalFlow } from './flow-state';

/** openid-client is ESM-only: node >= 20.19 requires it as is (jest transforms it). */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- ESM package loaded lazily
const lib = (): typeof Oidc => require('openid-client') as typeof Oidc;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * GitHub is plain OAuth 2 (no discovery, no ID token): its authorization and token endpoints are
 * fixed paths under the site's URL (github.com or a GitHub Enterprise server), and who signed in
 * is asked of its REST API with the access token. openid-client still does the protocol: the
 * authorization URL, `state` and PKCE checks, the code exchange.
 */
function configuration(github: GithubConfig): Oidc.Configuration {
  const c = lib();
  const config = new c.Configuration(
    {
      issuer: github.url,
      authorization_endpoint: `${github.url}/login/oauth/authorize`,
      token_endpoint: `${github.url}/login/oauth/access_token`,
    },
    github.key,
    undefined,
    c.ClientSecretPost(github.secret),
  );
  // Plain http only for a server on this machine (the tests' GitHub).
  const hosts = [new URL(github.url).hostname, new URL(github.apiUrl).hostname];
  if (hosts.every((host) => LOOPBACK.has(host))) c.allowInsecureRequests(config);
  return config;
}

/** The callback URL registered with the GitHub OAuth app, on the organization's own site. */
export const githubRedirectUri = (realmUrl: string) => `${realmUrl}/complete/github/`;

/** Starts GitHub's authorization: `user:email` (and `read:org` when membership is required). */
export async function startGithubLogin(
  ctx: AppContext,
  input: {
    github: GithubConfig;
    realmUrl: string;
    flow: Omit<ExternalFlow, 'nonce' | 'codeVerifier' | 'method'>;
  },
): Promise<{ url: string; state: string }> {
  const c = lib();
  const codeVerifier = c.randomPKCECodeVerifier();
  const state = await saveFlow(ctx, { ...input.flow, method: 'github', nonce: '', codeVerifier });
  const restricted = input.github.orgName !== null || input.github.teamId !== null;
  const url = c.buildAuthorizationUrl(configuration(input.github), {
    redirect_uri: githubRedirectUri(input.realmUrl),
    scope: restricted ? 'user:email read:org' : 'user:email',
    code_challenge: await c.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    allow_signup: 'false',
  });
  return { url: url.href, state };
}

interface GithubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

const isGithubEmail = (value: unknown): value is GithubEmail =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as GithubEmail).email === 'string' &&
  typeof (value as GithubEmail).verified === 'boolean';

/** GitHub's private relay addresses reach nobody; Zulip ignores them too. */
const NOREPLY = /@users\.noreply\.github\.com$/i;

class GithubRefusal extends Error {}

type GithubApi = (path: string) => Promise<{ status: number; body: unknown }>;

/** Zulip's GithubTeamOAuth2 / GithubOrganizationOAuth2: membership, when one is required. */
async function checkMembership(api: GithubApi, github: GithubConfig, login: string) {
  const user = encodeURIComponent(login);
  if (github.teamId !== null) {
    const team = await api(`/teams/${github.teamId}/memberships/${user}`);
    if (team.status !== 200 || (team.body as { state?: unknown }).state !== 'active') {
      throw new GithubRefusal('You are not a member of the GitHub team this server requires.');
    }
  } else if (github.orgName !== null) {
    const org = await api(`/orgs/${encodeURIComponent(github.orgName)}/members/${user}`);
    if (org.status !== 204) {
      throw new GithubRefusal(
        'You are not a member of the GitHub organization this server requires.',
      );
    }
  }
}

/**
 * The address to sign in with, among those `/user/emails` marks verified (never GitHub's private
 * relay): one that already has an account here (primary first), else the primary one. Zulip asks
 * the user to pick, which a redirect cannot. '' when there is none.
 */
async function chooseEmail(ctx: AppContext, realmId: number, api: GithubApi): Promise<string> {
  const listed = await api('/user/emails');
  if (listed.status !== 200 || !Array.isArray(listed.body)) {
    throw new Error(`GET /user/emails answered ${listed.status}`);
  }
  const verified = listed.body
    .filter(isGithubEmail)
    .filter((entry) => entry.verified && !NOREPLY.test(entry.email))
    .sort((a, b) => Number(b.primary) - Number(a.primary))
    .map((entry) => entry.email.trim().toLowerCase());
  const known = verified.length
    ? await ctx.db.user.findMany({
        where: { realmId, deliveryEmail: { in: verified }, isBot: false },
        select: { deliveryEmail: true },
      })
    : [];
  return (
    verified.find((address) => known.some((user) => user.deliveryEmail === address)) ??
    verified[0] ??
    ''
  );
}

/**
 * Trades the callback's code for an access token, then asks GitHub who it is: the profile,
 * membership of the required organization or team, and a verified address.
 */
export async function finishGithubLogin(
  ctx: AppContext,
  input: {
    github: GithubConfig;
    realmId: number;
    flow: ExternalFlow;
    callbackUrl: URL;
    state: string;
  },
): Promise<ExternalIdentity> {
  const c = lib();
  const { github } = input;
  const config = configuration(github);
  try {
    const tokens = await c.authorizationCodeGrant(config, input.callbackUrl, {
      pkceCodeVerifier: input.flow.codeVerifier,
      expectedState: input.state,
      idTokenExpected: false,
    });
    const api: GithubApi = async (path) => {
      const res = await c.fetchProtectedResource(
        config,
        tokens.access_token,
        new URL(`${github.apiUrl}${path}`),
        'GET',
        undefined,
        new Headers({
          Accept: 'application/vnd.github+json',
          'X-GitHub-Api-Version': '2022-11-28',
        }),
      );
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
    };
    const profile = await api('/user');
    const { login, name } = (profile.body ?? {}) as { login?: unknown; name?: unknown };
    if (profile.status !== 200 || typeof login !== 'string') {
      throw new Error(`GET /user answered ${profile.status}`);
    }
    await checkMembership(api, github, login);
    const email = await chooseEmail(ctx, input.realmId, api);
    return {
      email,
      emailVerified: email !== '',
      fullName: typeof name === 'string' && name.trim() ? name : login,
      autoSignup: github.autoSignup,
    };
  } catch (err) {
    if (err instanceof GithubRefusal) throw externalAuthRefused(err.message);
    ctx.log.info('auth', 'GitHub answer refused', {
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    });
    throw externalAuthRefused('GitHub’s answer could not be verified.');
  }
}
