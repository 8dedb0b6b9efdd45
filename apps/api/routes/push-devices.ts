import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import {
  addPushDeviceToken,
  PushKind,
  removePushDeviceToken,
  type PushKindCode,
} from '../../../libs/domain/push/device-tokens';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

interface AddTokenParams {
  token: string;
  appid?: string;
}

const routes: { path: string; kind: PushKindCode; appIdRequired: boolean }[] = [
  { path: '/users/me/apns_device_token', kind: PushKind.APNS, appIdRequired: true },
  { path: '/users/me/android_gcm_reg_id', kind: PushKind.FCM, appIdRequired: false },
];

/** Push notification device registration (spec 4.17); `appid` is required for APNs since FL 223. */
export function pushDeviceRoutes(router: Router, ctx: AppContext): void {
  for (const { path, kind, appIdRequired } of routes) {
    const appid = Joi.string();
    router.post(
      path,
      authed<AddTokenParams>(
        ctx,
        {
          token: P.string(Joi.string().allow('').required()),
          appid: P.string(appIdRequired ? appid.required() : appid),
        },
        async ({ user, params }) => {
          await addPushDeviceToken(ctx.db, user.id, kind, params.token, params.appid ?? null);
        },
      ),
    );
    router.delete(
      path,
      authed<{ token: string }>(
        ctx,
        { token: P.string(Joi.string().allow('').required()) },
        async ({ user, params }) => {
          await removePushDeviceToken(ctx.db, user.id, kind, params.token);
        },
      ),
    );
  }
}
