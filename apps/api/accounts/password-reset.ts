import { Router, type NextFunction, type Request, type Response } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { requestPasswordReset } from '../../../libs/domain/auth/request-password-reset';
import {
  invalidResetLink,
  resetLinkTarget,
  resetPassword,
} from '../../../libs/domain/auth/reset-password';
import { realmOfRequest } from '../../../libs/http/principal-cache';
import { nonexistentSubdomain } from '../../../libs/core/errors';
import { CSRF_FIELD, checkFormCsrf, escapeHtml, formCsrf, sendErrorPage, sendPage } from './page';

const field = (req: Request, name: string): string => {
  const value = ((req.body ?? {}) as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
};

const linkOf = (req: Request) => ({
  uidb64: String(req.params.uidb64),
  token: String(req.params.token),
});

type Handler = (req: Request, res: Response) => Promise<void>;

/** Runs a page handler; a refusal becomes a page with its status, a bug goes to the handler. */
const page =
  (title: string, handler: Handler) => (req: Request, res: Response, next: NextFunction) => {
    handler(req, res).catch((err: unknown) => {
      if (!sendErrorPage(res, err, title)) next(err);
    });
  };

/**
 * Zulip's password reset pages: `/accounts/password/reset/` asks for the address, the emailed
 * link `/accounts/password/reset/<uidb64>/<token>/` sets the new password once, and the `done`
 * pages confirm. Server-rendered forms (the mobile apps open these in a browser).
 */
export function passwordResetRoutes(ctx: AppContext): Router {
  const router = Router();
  resetRequestRoutes(router, ctx);
  resetLinkRoutes(router, ctx);
  return router;
}

/** The organization a page is asked of; none is an error page. */
async function realmOrFail(ctx: AppContext, req: Request) {
  const realm = await realmOfRequest(ctx, req);
  if (!realm) throw nonexistentSubdomain();
  return realm;
}

/** Asking for a reset link. */
function resetRequestRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/accounts/password/reset/',
    page('Reset your password', async (req, res) => {
      await realmOrFail(ctx, req);
      const csrf = formCsrf(ctx, req, res);
      sendPage(
        res,
        200,
        'Reset your password',
        `<form method="post" action="/accounts/password/reset/">` +
          `<input type="hidden" name="${CSRF_FIELD}" value="${escapeHtml(csrf)}">` +
          `<label>Email <input name="email" type="email" autocomplete="email" required></label>` +
          `<button type="submit">Send reset link</button></form>`,
      );
    }),
  );

  router.post(
    '/accounts/password/reset/',
    page('Reset your password', async (req, res) => {
      checkFormCsrf(req);
      const realm = await realmOrFail(ctx, req);
      await requestPasswordReset(ctx, { realm, email: field(req, 'email'), ip: req.ip ?? '' });
      res.redirect(302, '/accounts/password/reset/done/');
    }),
  );

  router.get('/accounts/password/reset/done/', (_req, res) => {
    sendPage(
      res,
      200,
      'Check your email',
      '<p>Check your email in a few minutes to finish the process.</p>',
    );
  });
}

/** The emailed link: setting the new password. */
function resetLinkRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/accounts/password/reset/:uidb64/:token/',
    page('Set a new password', async (req, res) => {
      const realm = await realmOrFail(ctx, req);
      const { uidb64, token } = linkOf(req);
      if (!(await resetLinkTarget(ctx, { realm, uidb64, token }))) throw invalidResetLink();
      const csrf = formCsrf(ctx, req, res);
      const action = `/accounts/password/reset/${encodeURIComponent(uidb64)}/${encodeURIComponent(token)}/`;
      // The token is in the address: no Referer carries it to another page.
      sendPage(
        res,
        200,
        'Set a new password',
        `<form method="post" action="${escapeHtml(action)}">` +
          `<input type="hidden" name="${CSRF_FIELD}" value="${escapeHtml(csrf)}">` +
          `<label>New password <input name="new_password1" type="password" autocomplete="new-password" required></label>` +
          `<label>Confirm password <input name="new_password2" type="password" autocomplete="new-password" required></label>` +
          `<button type="submit">Change password</button></form>`,
        'no-referrer',
      );
    }),
  );

  router.post(
    '/accounts/password/reset/:uidb64/:token/',
    page('Set a new password', async (req, res) => {
      checkFormCsrf(req);
      const realm = await realmOrFail(ctx, req);
      const password = field(req, 'new_password1');
      if (password !== field(req, 'new_password2')) {
        sendPage(res, 400, 'Set a new password', '<p role="alert">The passwords differ.</p>');
        return;
      }
      const { uidb64, token } = linkOf(req);
      await resetPassword(ctx, { realm, uidb64, token, password });
      res.redirect(302, '/accounts/password/done/');
    }),
  );

  router.get('/accounts/password/done/', (_req, res) => {
    sendPage(
      res,
      200,
      'Password reset complete',
      '<p>Your password has been changed. <a href="/login">Log in</a> with it.</p>',
    );
  });
}
