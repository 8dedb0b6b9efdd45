import { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import {
  confirmTwoFactorSetup,
  disableTwoFactor,
  startTwoFactorSetup,
  twoFactorStatus,
} from '../../../libs/domain/auth/two-factor-setup';
import { authed } from '../../../libs/http/route';

/**
 * The web client's two-factor settings (Zulip's /account/two_factor/ pages), under `/json` only:
 * a browser session manages them, not an API key.
 */
export function twoFactorRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get(
    '/two_factor',
    authed(ctx, {}, async ({ user }) => twoFactorStatus(ctx, user)),
  );
  router.post(
    '/two_factor/setup',
    authed(ctx, {}, async ({ user, realm }) => startTwoFactorSetup(ctx, user, realm)),
  );
  router.post(
    '/two_factor/confirm',
    authed(ctx, { otp: P.string().required() }, async ({ user, params }) =>
      confirmTwoFactorSetup(ctx, user, params.otp),
    ),
  );
  router.post(
    '/two_factor/disable',
    authed(ctx, { otp: P.string().required() }, async ({ user, params }) => {
      await disableTwoFactor(ctx, user, params.otp);
    }),
  );
  return router;
}
