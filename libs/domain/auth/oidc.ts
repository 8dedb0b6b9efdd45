import type * as Oidc from 'openid-client' with { 'resolution-mode': 'import' };
import type { OidcIdpConfig } from '../../core/config';
import type { AppContext } from '../../core/context';
import { externalAuthRefused, type ExternalIdentity } from './external-login';
import { saveFlow, type ExternalFlow } from './flow-state';

/** openid-client is ESM-only: node >= 20.19 requires it as is (jest transforms it). */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- ESM package loaded lazily
const lib = (): typeof Oidc => require('openid-client');

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Discovery answers, per provider and process; a failed discovery is tried again next time. */
const discovered = new Map<string, Promise<Oidc.Configuration>>();

function configuration(idp: OidcIdpConfig): Promise<Oidc.Configuration> {
  const key = `${idp.name} ${idp.oidcUrl} ${idp.clientId}`;
  let found = discovered.get(key);
  if (!found) {
    const c = lib();
    const issuer = new URL(idp.oidcUrl);
    // Plain http only for a provider on this machine (a test or a local Keycloak).
    const options = LOOPBACK.has(issuer.hostname) ? { execute: [c.allowInsecureRequests] } : {};
    found = c
      .discovery(
        issuer,
        idp.clientId,
        idp.secret ? idp.secret : undefined,
        idp.secret ? undefined : c.None(),
        options,
      )
      .then((config) => {
        // The ID token's signature is checked against the provider's JWKS, not only its claims.
        c.enableNonRepudiationChecks(config);
        return config;
      });
    found.catch(() => discovered.delete(key));
    discovered.set(key, found);
  }
  return found;
}

/** The callback URL registered with every provider, on the organization's own site. */
export const oidcRedirectUri = (realmUrl: string) => `${realmUrl}/complete/oidc/`;

/** Starts the authorization code flow with PKCE, `state` and `nonce`; the provider's URL. */
export async function startOidcLogin(
  ctx: AppContext,
  input: {
    idp: OidcIdpConfig;
    realmUrl: string;
    flow: Omit<ExternalFlow, 'nonce' | 'codeVerifier' | 'method'>;
  },
): Promise<{ url: string; state: string }> {
  const c = lib();
  const config = await configuration(input.idp).catch((err: unknown) => {
    ctx.log.warn('auth', 'OpenID Connect discovery failed', {
      idp: input.idp.name,
      error: String(err),
    });
    throw externalAuthRefused('The identity provider cannot be reached.');
  });
  const codeVerifier = c.randomPKCECodeVerifier();
  const nonce = c.randomNonce();
  const state = await saveFlow(ctx, {
    ...input.flow,
    method: `oidc:${input.idp.name}`,
    nonce,
    codeVerifier,
  });
  const url = c.buildAuthorizationUrl(config, {
    redirect_uri: oidcRedirectUri(input.realmUrl),
    scope: 'openid email profile',
    code_challenge: await c.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { url: url.href, state };
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * Trades the callback's code for tokens and checks them (openid-client: issuer, audience,
 * expiry, nonce, state, PKCE, the ID token's signature by the JWKS). The address comes from the
 * ID token, or the userinfo endpoint for the same subject; it counts only if `email_verified`.
 */
export async function finishOidcLogin(
  ctx: AppContext,
  input: { idp: OidcIdpConfig; flow: ExternalFlow; callbackUrl: URL; state: string },
): Promise<ExternalIdentity> {
  const c = lib();
  try {
    const config = await configuration(input.idp);
    const tokens = await c.authorizationCodeGrant(config, input.callbackUrl, {
      pkceCodeVerifier: input.flow.codeVerifier,
      expectedNonce: input.flow.nonce,
      expectedState: input.state,
      idTokenExpected: true,
    });
    let claims: Record<string, unknown> = { ...tokens.claims() };
    if (typeof claims.email !== 'string') {
      const info = await c.fetchUserInfo(config, tokens.access_token, String(claims.sub));
      claims = { ...claims, ...info };
    }
    const fullName =
      text(claims.name) || [text(claims.given_name), text(claims.family_name)].join(' ').trim();
    return {
      email: text(claims.email),
      emailVerified: claims.email_verified === true && text(claims.email) !== '',
      fullName,
      autoSignup: input.idp.autoSignup,
    };
  } catch (err) {
    ctx.log.info('auth', 'OpenID Connect answer refused', {
      idp: input.idp.name,
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    });
    throw externalAuthRefused('The identity provider’s answer could not be verified.');
  }
}
