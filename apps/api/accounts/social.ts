import { Router, type NextFunction, type Request, type Response } from 'express';
import type { Realm, User } from '../../../generated/prisma/client';
import type { AppContext } from '../../../libs/core/context';
import {
  badRequest,
  nonexistentSubdomain,
  notFound,
  realmDeactivated,
  userDeactivated,
} from '../../../libs/core/errors';
import {
  desktopFlowData,
  storeLoginToken,
  takeLoginToken,
} from '../../../libs/domain/auth/desktop-login';
import { externalLogin, type ExternalIdentity } from '../../../libs/domain/auth/external-login';
import { githubFor, oidcIdpFor } from '../../../libs/domain/auth/external-methods';
import { FLOW_SECONDS, takeFlow, type ExternalFlow } from '../../../libs/domain/auth/flow-state';
import { finishGithubLogin, startGithubLogin } from '../../../libs/domain/auth/github';
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
import { escapeHtml, sendErrorPage, sendPage } from './page';

/** Binds a flow's `state` to the browser that started it (login CSRF). */
const STATE_COOKIE = 'auth_flow_state';

export const query = (req: Request, name: string): string | null => {
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

export const page =
  (title: string, handler: (req: Request, res: Response) => Promise<void>) =>
  (req: Request, res: Response, next: NextFunction) => {
    handler(req, res).catch((err: unknown) => {
      if (!sendErrorPage(res, err, title)) next(err);
    });
  };

/** The one-time pads of Zulip's apps, checked as Zulip's validate_otp_params does. */
export function clientOtps(req: Request): {
  mobileFlowOtp: string | null;
  desktopFlowOtp: string | null;
} {
  const mobileFlowOtp = query(req, 'mobile_flow_otp');
  const desktopFlowOtp = query(req, 'desktop_flow_otp');
  for (const otp of [mobileFlowOtp, desktopFlowOtp]) {
    if (otp !== null && !isValidOtp(otp)) throw badRequest('Invalid OTP');
  }
  if (mobileFlowOtp !== null && desktopFlowOtp !== null) {
    throw badRequest("Can't use both mobile_flow_otp and desktop_flow_otp together.");
  }
  return { mobileFlowOtp, desktopFlowOtp };
}

type FlowStart = Omit<ExternalFlow, 'nonce' | 'codeVerifier' | 'method'>;
type Launch = (
  realm: Realm,
  flow: FlowStart,
  req: Request,
) => Promise<{ url: string; state: string }>;
type Finish = (
  realm: Realm,
  input: { flow: ExternalFlow; callbackUrl: URL; state: string },
) => Promise<ExternalIdentity>;

/** Zulip's desktop_login page: the app's side of its flow (static/js/desktop-login.js). */
const DESKTOP_LOGIN_PAGE =
  '<p>Finish signing in in your web browser, which is opening now.</p>' +
  '<form id="desktop-token-form"><label>Or paste the login token it shows: ' +
  '<input id="token" autocomplete="off"></label>' +
  '<p id="bad-token" role="alert" hidden>That is not a login token for this window.</p>' +
  '</form><p id="done" hidden>Signing in…</p>' +
  '<script src="/static/js/desktop-login.js"></script>';

const notEnabled = () => notFound('This sign-in method is not enabled in this organization.');

/**
 * Zulip's handle_desktop_flow, at the start of every external sign-in: inside the desktop app,
 * a page sends the sign-in to the system browser with a fresh key and waits for its token.
 * True when the request came from the app and got that page.
 */
export function sentToSystemBrowser(req: Request, res: Response): boolean {
  if (!/\bZulipElectron\//.test(req.get('user-agent') ?? '')) return false;
  sendPage(res, 200, 'Sign in with your browser', DESKTOP_LOGIN_PAGE);
  return true;
}

/** The start of a redirect sign-in: the app pads and `next` checked, the flow saved, away. */
const startFlow = (ctx: AppContext, isSignup: boolean, launch: Launch) =>
  page('Sign in', async (req, res) => {
    const realm = await realmOfRequest(ctx, req);
    if (!realm) throw nonexistentSubdomain();
    if (sentToSystemBrowser(req, res)) return;
    const otps = clientOtps(req);
    const next = safeNext(query(req, 'next'));
    const flow = { realmId: realm.id, next, ...otps, isSignup };
    const { url, state } = await launch(realm, flow, req);
    res.cookie(STATE_COOKIE, state, {
      ...cookieOptions(ctx, true, FLOW_SECONDS),
      path: '/complete/',
    });
    res.redirect(302, url);
  });

/** The callback: `state` bound to this browser and used once, the provider's answer checked. */
const completeFlow = (ctx: AppContext, isMethod: (method: string) => boolean, finish: Finish) =>
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
    if (!flow || flow.realmId !== realm.id || !isMethod(flow.method)) {
      throw badRequest('This sign-in has expired or was already used: start again.');
    }
    const providerError = query(req, 'error');
    if (providerError !== null) {
      throw badRequest(`The identity provider refused the sign-in (${providerError}).`);
    }
    const base = realmUrl(realm.stringId, ctx.config);
    const callbackUrl = new URL(req.originalUrl, base);
    const identity = await finish(realm, { flow, callbackUrl, state });
    const user = await externalLogin(ctx, { realm, identity });
    await finishSignIn(ctx, res, { user, realmUrl: base, flow });
  });

function oidcRoutes(ctx: AppContext, router: Router): void {
  const start = (isSignup: boolean) =>
    startFlow(ctx, isSignup, (realm, flow, req) => {
      const idp = oidcIdpFor(ctx.config, realm, String(req.params.idp));
      if (!idp) throw notEnabled();
      return startOidcLogin(ctx, { idp, realmUrl: realmUrl(realm.stringId, ctx.config), flow });
    });
  router.get('/accounts/login/social/oidc/:idp', start(false));
  router.get('/accounts/register/social/oidc/:idp', start(true));
  router.get(
    '/complete/oidc/',
    completeFlow(
      ctx,
      (method) => method.startsWith('oidc:'),
      (realm, input) => {
        const idp = oidcIdpFor(ctx.config, realm, input.flow.method.slice('oidc:'.length));
        if (!idp) throw notEnabled();
        return finishOidcLogin(ctx, { idp, ...input });
      },
    ),
  );
}

function githubRoutes(ctx: AppContext, router: Router): void {
  const start = (isSignup: boolean) =>
    startFlow(ctx, isSignup, (realm, flow) => {
      const github = githubFor(ctx.config, realm);
      if (!github) throw notEnabled();
      return startGithubLogin(ctx, {
        github,
        realmUrl: realmUrl(realm.stringId, ctx.config),
        flow,
      });
    });
  router.get('/accounts/login/social/github', start(false));
  router.get('/accounts/register/social/github', start(true));
  router.get(
    '/complete/github/',
    completeFlow(
      ctx,
      (method) => method === 'github',
      (realm, input) => {
        const github = githubFor(ctx.config, realm);
        if (!github) throw notEnabled();
        return finishGithubLogin(ctx, { github, realmId: realm.id, ...input });
      },
    ),
  );
}

/**
 * Sign-in through external providers, at Zulip's paths: `/accounts/login/social/oidc/<name>` and
 * `/accounts/login/social/github` (and `/accounts/register/...` for sign-up) start it,
 * `/complete/oidc/` and `/complete/github/` take the callback. With `mobile_flow_otp` the flow
 * ends in the `zulip://login?...` redirect Zulip's mobile app waits for; with `desktop_flow_otp`
 * in the token page of Zulip's desktop app (then `/accounts/login/subdomain/<token>`); otherwise
 * in a browser session on the organization's site.
 */
export function socialAuthRoutes(ctx: AppContext): Router {
  const router = Router();
  oidcRoutes(ctx, router);
  githubRoutes(ctx, router);
  // The desktop app's last step: its copied token for a browser session of its own.
  router.get(
    '/accounts/login/subdomain/:token',
    page('Sign in', async (req, res) => {
      const realm = await realmOfRequest(ctx, req);
      if (!realm) throw nonexistentSubdomain();
      const data = await takeLoginToken(ctx, String(req.params.token));
      if (!data) throw badRequest('This login token has expired or was already used.');
      if (data.realmId !== realm.id) throw badRequest('Invalid subdomain');
      if (realm.deactivated) throw realmDeactivated();
      const user = await ctx.db.user.findUnique({ where: { id: data.userId } });
      if (!user || !user.isActive) throw userDeactivated();
      await startBrowserSession(ctx, res, user);
      res.redirect(302, data.next);
    }),
  );
  return router;
}

/** A browser session for the user: the session and CSRF cookies. */
async function startBrowserSession(ctx: AppContext, res: Response, user: User): Promise<void> {
  const { token, session } = await createSession(ctx, {
    userId: user.id,
    email: user.email,
    apiKeyHash: user.apiKeyHash,
  });
  res.cookie(SESSION_COOKIE, token, cookieOptions(ctx, true, SESSION_SECONDS));
  res.cookie(CSRF_COOKIE, session.csrf, cookieOptions(ctx, false, SESSION_SECONDS));
}

/**
 * The end of every external sign-in: the mobile app's redirect, the desktop app's token page, or
 * a browser session.
 */
export async function finishSignIn(
  ctx: AppContext,
  res: Response,
  input: { user: User; realmUrl: string; flow: ExternalFlow },
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
  if (flow.desktopFlowOtp !== null) {
    const token = await storeLoginToken(ctx, {
      userId: user.id,
      realmId: user.realmId,
      next: flow.next,
    });
    const data = desktopFlowData(flow.desktopFlowOtp, token);
    sendPage(
      res,
      200,
      'Finish signing in',
      '<p>Copy this login token and return to your Zulip app to finish logging in:</p>' +
        `<p><input id="desktop-data" aria-label="Login token" readonly value="${escapeHtml(data)}"></p>` +
        '<p>You may then close this window.</p>' +
        '<p><a href="/login">Or, continue in your browser.</a></p>',
      'no-referrer',
    );
    return;
  }
  await startBrowserSession(ctx, res, user);
  res.redirect(302, flow.next);
}
