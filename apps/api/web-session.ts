import { Router, type Request, type Response } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../libs/core/context';
import { nonexistentSubdomain } from '../../libs/core/errors';
import { P } from '../../libs/core/schema';
import { fetchApiKey } from '../../libs/domain/auth/fetch-api-key';
import { requireSecondFactor } from '../../libs/domain/auth/second-factor';
import { hashApiKey } from '../../libs/domain/users/api-keys';
import { open } from '../../libs/http/route';
import {
  CSRF_COOKIE,
  CSRF_HEADER,
  SESSION_COOKIE,
  SESSION_SECONDS,
  attachSession,
  cookieOptions,
  cookieValue,
  createSession,
  csrfFailed,
  deleteSession,
  newToken,
  sameToken,
  sessionToken,
} from '../../libs/http/session';

/**
 * The web client's sign-in and sign-out (`POST /json/login`, `POST /json/logout`). Signing in
 * checks the password as `POST /fetch_api_key` does, with the same per-account rate limit, and
 * answers with cookies instead of the key: the page never sees the API key.
 */
export function webSessionRoutes(ctx: AppContext): Router {
  const router = Router();
  router.post(
    '/login',
    open(
      ctx,
      {
        username: P.string(Joi.string()).required(),
        password: P.string().required(),
        otp: P.string(Joi.string().max(64)),
      },
      async ({ realm, params, req }) => {
        // Login CSRF: the token the page got with its cookie must come back in the header, which
        // a form on another site cannot set.
        const cookie = cookieValue(req, CSRF_COOKIE);
        if (!cookie) throw csrfFailed('CSRF cookie not set.');
        if (!sameToken(req.get(CSRF_HEADER), cookie)) throw csrfFailed('CSRF token incorrect.');
        if (!realm) throw nonexistentSubdomain();
        const key = await fetchApiKey(ctx, realm, params.username, params.password);
        await requireSecondFactor(ctx, {
          userId: key.user_id,
          username: params.username,
          code: params.otp,
        });
        const { token, session } = await createSession(ctx, {
          userId: key.user_id,
          email: key.email,
          apiKeyHash: hashApiKey(key.api_key),
        });
        const res = req.res as Response;
        res.cookie(SESSION_COOKIE, token, cookieOptions(ctx, true, SESSION_SECONDS));
        // A new CSRF token with the new session, as Django rotates it at login.
        res.cookie(CSRF_COOKIE, session.csrf, cookieOptions(ctx, false, SESSION_SECONDS));
        return { user_id: key.user_id, email: key.email };
      },
    ),
  );
  router.post('/logout', async (req: Request, res: Response, next) => {
    try {
      await attachSession(ctx, req, true);
      const token = sessionToken(req);
      if (token) await deleteSession(ctx, token);
      res.clearCookie(SESSION_COOKIE, { path: '/' });
      res.cookie(CSRF_COOKIE, newToken(), cookieOptions(ctx, false, 365 * 24 * 3600));
      res.json({ result: 'success', msg: '' });
    } catch (err) {
      next(err);
    }
  });
  return router;
}
