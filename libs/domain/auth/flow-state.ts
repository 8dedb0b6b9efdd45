import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../core/context';

/** What a sign-in through an external provider carries from its start to its callback. */
export interface ExternalFlow {
  /** `oidc:<name>`, `github`, ... */
  method: string;
  realmId: number;
  /** A path on the organization's own site to land on, already checked (never another host). */
  next: string;
  mobileFlowOtp: string | null;
  /** Zulip's desktop app's one-time key: the flow ends in a token for it to copy. */
  desktopFlowOtp: string | null;
  isSignup: boolean;
  /** OpenID Connect's nonce and the PKCE verifier. */
  nonce: string;
  codeVerifier: string;
}

/** Zulip keeps social sign-in state 10 minutes (SOCIAL_AUTH_*_STATE in the session). */
export const FLOW_SECONDS = 600;

const flowKey = (ctx: AppContext, state: string) => `${ctx.config.redisPrefix}auth-flow:${state}`;

/** Stores a flow under a new random `state`, in Redis so any replica can take the callback. */
export async function saveFlow(ctx: AppContext, flow: ExternalFlow): Promise<string> {
  const state = randomBytes(24).toString('base64url');
  await ctx.redis.set(flowKey(ctx, state), JSON.stringify(flow), 'EX', FLOW_SECONDS);
  return state;
}

/** Takes a flow out: a state is good for one callback (a replayed callback finds nothing). */
export async function takeFlow(ctx: AppContext, state: string): Promise<ExternalFlow | null> {
  if (!/^[A-Za-z0-9_-]{32}$/.test(state)) return null;
  const stored = await ctx.redis.getdel(flowKey(ctx, state));
  return stored ? (JSON.parse(stored) as ExternalFlow) : null;
}
