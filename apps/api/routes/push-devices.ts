import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { addPushDeviceToken } from '../../../libs/domain/push/add-push-device-token';
import { PushKind, type PushKindCode } from '../../../libs/domain/push/push-kind';
import { removePushDeviceToken } from '../../../libs/domain/push/remove-push-device-token';
import { sendTestPushNotification } from '../../../libs/domain/push/send-test-push-notification';
import { authed } from '../../../libs/http/route';

const routes: { path: string; kind: PushKindCode; appIdRequired: boolean }[] = [
  { path: '/users/me/apns_device_token', kind: PushKind.APNS, appIdRequired: true },
  { path: '/users/me/android_gcm_reg_id', kind: PushKind.FCM, appIdRequired: false },
];

/**
 * Push notification device registration (spec 4.17; `appid` is required for APNs since FL 223)
 * and the test notification (FL 217).
 */
export function pushDeviceRoutes(router: Router, ctx: AppContext): void {
  for (const { path, kind, appIdRequired } of routes) {
    const appid = P.string(Joi.string());
    router.post(
      path,
      authed(
        ctx,
        {
          token: P.string().required(),
          appid: appIdRequired ? appid.required() : appid,
        },
        async ({ user, params }) => {
          await addPushDeviceToken(ctx, {
            userId: user.id,
            kind,
            token: params.token,
            appId: params.appid ?? null,
          });
        },
      ),
    );
    router.delete(
      path,
      authed(ctx, { token: P.string().required() }, async ({ user, params }) => {
        await removePushDeviceToken(ctx, user.id, kind, params.token);
      }),
    );
  }
  router.post(
    '/mobile_push/test_notification',
    authed(ctx, { token: P.string() }, async ({ user, params }) => {
      await sendTestPushNotification(ctx, user, params.token);
    }),
  );
}
