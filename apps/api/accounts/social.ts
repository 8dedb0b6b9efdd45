import { Router, type NextFunction, type Request, type Response } from 'express';
import type { User } from '../../../generated/prisma/client';
import type { AppContext } from '../../../libs/core/context';
import { badRequest, nonexistentSubdomain, notFound } from '../../../libs/core/errors';
import { externalLogin } from '../../../libs/domain/auth/external-login';
import { oidcIdpFor } from '../../../libs/domain/auth/external-methods';
import { FLOW_SECONDS, takeFlow } from '../../../libs/domain/auth/flow-state';
import { isValidOtp, mobileLoginRedirect } from '../../../libs/domain/auth/mobile-otp';
import { finishOidcLogin, startOidcLogin } from '../../../libs/domain/auth/oidc';
import { realmUrl } from '../../../libs/domain/realms/realm-url';
import { decryptApiKey } from '../../../libs/domain/users/api-keys';
import { realmOfRequest } from '../../../libs/http/principal-cache';
import {
  CSRF_COOKIE,
  SESSION_COOKIE,
  SESSION_SECONDS,
  cookieOptions,
  cookieValue,
  createSession,
} from '../../../libs/http/session';
import { sendErrorPage } from './page';

/** Binds a flow's `state` to the browser that started it (login CSRF). */
const STATE_COOKIE = 'auth_flow_state';

const query = (req: Request, name: string): string | null => {
  const value = req.query[name];
  return typeof value === 'string' ? value : null;
};

/**
 * Where to land after signing in: a path on this site only. Anything that could leave it
 * (`//host`, `/\host`, a scheme) is refused rather than followed, so the sign-in pages are no
 * open redirect.
 */
export function safeNext(next: string | null): string {
  if (next === null || next === '') return '/';
  if (!/^\/(?![/\\])[^\s\\]*$/.test(next)) {
    throw badRequest('The "next" address must be a path on this site.');
  }
  return next;
}

const page =
  (title: string, handler: (req: Request, res: Response) => Promise<void>) =>
  (req: Request, res: Response, next: NextFunction) => {
    handler(req, res).catch((err: unknown) => {
      if (!sendErrorPage(res, err, title)) next(err);
    });
  };

/**
 * Sign-in through external providers, at Zulip's paths: `/accounts/login/social/oidc/<name>`
 * (and `/accounts/register/...` for sign-up) start it, `/complete/oidc/` takes the callback. With
 * `mobile_flow_otp` the flow ends in the `zulip://login?...` redirect Zulip's mobile app waits
 * for; otherwise in a browser session on the organization's site.
 */
export function socialAuthRoutes(ctx: AppContext): Router {
  const router = Router();

  const start = (isSignup: boolean) =>
    page('Sign in', async (req, res) => {
      const realm = await realmOfRequest(ctx, req);
      if (!realm) throw nonexistentSubdomain();
      const idp = oidcIdpFor(ctx.config, realm, String(req.params.idp));
      if (!idp) throw notFound('This sign-in method is not enabled in this organization.');
      const mobileFlowOtp = query(req, 'mobile_flow_otp');
      if (mobileFlowOtp !== null && !isValidOtp(mobileFlowOtp)) throw badRequest('Invalid OTP');
      if (query(req, 'desktop_flow_otp') !== null) {
        throw badRequest('The desktop app’s sign-in flow is not supported by this server.');
      }
      const next = safeNext(query(req, 'next'));
      const { url, state } = await startOidcLogin(ctx, {
        idp,
        realmUrl: realmUrl(realm.stringId, ctx.config),
        flow: { realmId: realm.id, next, mobileFlowOtp, isSignup },
      });
      res.cookie(STATE_COOKIE, state, {
        ...cookieOptions(ctx, true, FLOW_SECONDS),
        path: '/complete/',
      });
      res.redirect(302, url);
    });
  router.get('/accounts/login/social/oidc/:idp', start(false));
  router.get('/accounts/register/social/oidc/:idp', start(true));

  router.get(
    '/complete/oidc/',
    page('Sign in', async (req, res) => {
      const realm = await realmOfRequest(ctx, req);
      if (!realm) throw nonexistentSubdomain();
      const state = query(req, 'state') ?? '';
      const bound = cookieValue(req, STATE_COOKIE);
      res.clearCookie(STATE_COOKIE, { path: '/complete/' });
      if (!state || bound !== state) {
        throw badRequest('Sign-in state mismatch: start again from the sign-in page.');
      }
      const flow = await takeFlow(ctx, state);
      if (!flow || flow.realmId !== realm.id || !flow.method.startsWith('oidc:')) {
        throw badRequest('This sign-in has expired or was already used: start again.');
      }
      const providerError = query(req, 'error');
      if (providerError !== null) {
        throw badRequest(`The identity provider refused the sign-in (${providerError}).`);
      }
      const idp = oidcIdpFor(ctx.config, realm, flow.method.slice('oidc:'.length));
      if (!idp) throw notFound('This sign-in method is not enabled in this organization.');
      const base = realmUrl(realm.stringId, ctx.config);
      const callbackUrl = new URL(req.originalUrl, base);
      const identity = await finishOidcLogin(ctx, { idp, flow, callbackUrl, state });
      const user = await externalLogin(ctx, { realm, identity });
      await finishSignIn(ctx, res, { user, realmUrl: base, flow });
    }),
  );
  return router;
}

/** The end of every external sign-in: the mobile app's redirect, or a browser session. */
async function finishSignIn(
  ctx: AppContext,
  res: Response,
  input: { user: User; realmUrl: string; flow: { next: string; mobileFlowOtp: string | null } },
): Promise<void> {
  const { user, flow } = input;
  if (flow.mobileFlowOtp !== null) {
    const location = mobileLoginRedirect({
      apiKey: decryptApiKey(user.apiKeyCiphertext, ctx.config.secretKey),
      otp: flow.mobileFlowOtp,
      email: user.deliveryEmail,
      userId: user.id,
      realmUrl: input.realmUrl,
    });
    // Express's redirect would accept it too; set it as is, a custom scheme included.
    res.status(302).set('Location', location).end();
    return;
  }
  const { token, session } = await createSession(ctx, {
    userId: user.id,
    email: user.email,
    apiKeyHash: user.apiKeyHash,
  });
  res.cookie(SESSION_COOKIE, token, cookieOptions(ctx, true, SESSION_SECONDS));
  res.cookie(CSRF_COOKIE, session.csrf, cookieOptions(ctx, false, SESSION_SECONDS));
  res.redirect(302, flow.next);
}
