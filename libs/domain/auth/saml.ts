import { randomBytes } from 'node:crypto';
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import type { SamlConfig, SamlIdpConfig } from '../../core/directory-auth-config';
import type { AppContext } from '../../core/context';
import { externalAuthRefused, type ExternalIdentity } from './external-login';
import { FLOW_SECONDS, saveFlow, type ExternalFlow } from './flow-state';

/** The assertion consumer service, on the organization's own site (Zulip's path). */
export const samlAcsUrl = (realmUrl: string) => `${realmUrl}/complete/saml/`;

/** Clocks of the IdP and this server may differ by this much at NotBefore / NotOnOrAfter. */
const CLOCK_SKEW_MS = 30_000;

/**
 * The AuthnRequest IDs this server sent, in Redis for every replica, each good for one response
 * (node-saml reads it to check InResponseTo and removes it once used).
 */
function requestIdCache(ctx: AppContext): CacheProvider {
  const key = (id: string) => `${ctx.config.redisPrefix}saml-request:${id}`;
  return {
    async saveAsync(id, value) {
      await ctx.redis.set(key(id), value, 'EX', FLOW_SECONDS);
      return { value, createdAt: Date.now() };
    },
    getAsync: (id) => ctx.redis.get(key(id)),
    removeAsync: async (id) => (id ? ctx.redis.getdel(key(id)) : null),
  };
}

function serviceProvider(
  ctx: AppContext,
  input: { saml: SamlConfig; idp: SamlIdpConfig; realmUrl: string; requestId?: string },
): SAML {
  const { saml, idp } = input;
  return new SAML({
    callbackUrl: samlAcsUrl(input.realmUrl),
    entryPoint: idp.url,
    issuer: saml.spEntityId,
    audience: saml.spEntityId,
    idpCert: idp.certs,
    // Either the response or its assertion must carry a valid signature by the IdP's key.
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: FLOW_SECONDS * 1000,
    cacheProvider: requestIdCache(ctx),
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    // Azure AD and Okta refuse a requested "password" context when the user signed in otherwise.
    disableRequestedAuthnContext: true,
    ...(saml.spPrivateKey
      ? { privateKey: saml.spPrivateKey, signatureAlgorithm: 'sha256' as const }
      : {}),
    ...(saml.spPublicCert ? { publicCert: saml.spPublicCert } : {}),
    generateUniqueId: () => input.requestId ?? `_${randomBytes(20).toString('hex')}`,
  });
}

/** The SP metadata the IdP's administrator imports (Zulip's /saml/metadata.xml). */
export function samlMetadata(ctx: AppContext, saml: SamlConfig, realmUrl: string): string {
  const [idp] = saml.idps;
  // SOCIAL_AUTH_SAML_ENABLED_IDPS may be `{}`: SAML on, but no IdP to describe the SP against.
  if (!idp) throw new Error('SOCIAL_AUTH_SAML_ENABLED_IDPS names no SAML IdP');
  return serviceProvider(ctx, { saml, idp, realmUrl }).generateServiceProviderMetadata(
    null,
    saml.spPublicCert,
  );
}

/** Sends the browser to the IdP with an AuthnRequest whose ID the flow keeps; the IdP's URL. */
export async function startSamlLogin(
  ctx: AppContext,
  input: {
    saml: SamlConfig;
    idp: SamlIdpConfig;
    realmUrl: string;
    flow: Omit<ExternalFlow, 'nonce' | 'codeVerifier' | 'method'>;
  },
): Promise<{ url: string; state: string }> {
  const requestId = `_${randomBytes(20).toString('hex')}`;
  const state = await saveFlow(ctx, {
    ...input.flow,
    method: `saml:${input.idp.name}`,
    nonce: requestId,
    codeVerifier: '',
  });
  const sp = serviceProvider(ctx, { ...input, requestId });
  const url = await sp.getAuthorizeUrlAsync(state, undefined, {});
  return { url, state };
}

const text = (value: unknown): string =>
  typeof value === 'string' ? value : Array.isArray(value) ? text(value[0]) : '';

/** node-saml's refusals, said plainly (the details go to the log). */
function reason(message: string): string {
  if (/signature/i.test(message)) return 'its signature is not valid';
  if (/expired|not yet valid|subject confirmation/i.test(message)) return 'it has expired';
  if (/audience/i.test(message)) return 'it is meant for another service';
  if (/InResponseTo/i.test(message)) return 'it answers no sign-in started here, or was used';
  return 'it is not a valid SAML response';
}

/** Marks an assertion used until it expires; false when it already was (a replay). */
async function firstUse(ctx: AppContext, idp: string, profile: Profile): Promise<boolean> {
  const assertion = profile.getAssertion?.() as { Assertion?: { $?: { ID?: string } } } | undefined;
  const id = assertion?.Assertion?.$?.ID ?? profile.inResponseTo;
  const key = `${ctx.config.redisPrefix}saml-assertion:${idp}:${String(id)}`;
  return (await ctx.redis.set(key, '1', 'EX', FLOW_SECONDS, 'NX')) === 'OK';
}

/**
 * Checks the IdP's POSTed response (node-saml: the signature of the response or its assertion by
 * the configured certificate, audience, NotBefore / NotOnOrAfter, InResponseTo against the
 * requests sent), that it answers this flow's request and comes from this IdP, and that its
 * assertion was not used before; then reads the mapped attributes. The IdP vouches for the
 * address, as Zulip takes it.
 */
export async function finishSamlLogin(
  ctx: AppContext,
  input: {
    saml: SamlConfig;
    idp: SamlIdpConfig;
    realmUrl: string;
    flow: ExternalFlow;
    samlResponse: string;
    relayState: string;
  },
): Promise<ExternalIdentity> {
  const { idp, flow } = input;
  let profile: Profile | null;
  try {
    ({ profile } = await serviceProvider(ctx, input).validatePostResponseAsync({
      SAMLResponse: input.samlResponse,
      RelayState: input.relayState,
    }));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    ctx.log.info('auth', 'SAML response refused', { idp: idp.name, error: message });
    throw externalAuthRefused(
      `The identity provider’s answer could not be verified: ${reason(message)}.`,
    );
  }
  if (!profile || profile.inResponseTo !== flow.nonce) {
    throw externalAuthRefused(
      'The identity provider’s answer could not be verified: it answers another sign-in.',
    );
  }
  if (profile.issuer !== idp.entityId) {
    throw externalAuthRefused(
      'The identity provider’s answer could not be verified: it comes from another IdP.',
    );
  }
  if (!(await firstUse(ctx, idp.name, profile))) {
    throw externalAuthRefused(
      'The identity provider’s answer could not be verified: it was already used.',
    );
  }
  const email = text(profile[idp.attrEmail]) || text(profile.email);
  return {
    email,
    emailVerified: email.includes('@'),
    fullName: [text(profile[idp.attrFirstName]), text(profile[idp.attrLastName])].join(' ').trim(),
    autoSignup: idp.autoSignup,
  };
}
