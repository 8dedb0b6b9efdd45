import type { User } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { ApiError, badRequest } from '../../core/errors';
import { BouncerError, sendTestNotification } from './bouncer-client';
import { pushTarget } from './push-devices';
import type { PushKindCode } from './push-kind';
import { basePayload } from './push-payloads';

/**
 * POST /mobile_push/test_notification: asks the bouncer to send a test notification to one of
 * the user's devices (`token`) or to all of them. The bouncer formats the notification itself
 * from the base payload (zilencer's remote_server_send_test_notification).
 */
export async function sendTestPushNotification(
  ctx: AppContext,
  user: User,
  token: string | undefined,
): Promise<void> {
  const devices = await ctx.db.pushDeviceToken.findMany({
    where: { userId: user.id, ...(token !== undefined ? { token } : {}) },
    orderBy: { id: 'asc' },
  });
  if (token !== undefined && devices.length === 0) {
    throw new ApiError('INVALID_PUSH_DEVICE_TOKEN', 'Device not recognized');
  }
  if (devices.length === 0) throw badRequest('No push notification devices registered');
  const bouncer = ctx.config.pushBouncer;
  if (!bouncer) throw badRequest('Push notifications are not configured on this server');
  const target = await pushTarget(ctx, ctx.db, user.id);
  if (!target) throw badRequest('No push notification devices registered');
  for (const device of devices) {
    try {
      await sendTestNotification(bouncer, {
        who: target.identity,
        device: { kind: device.kind as PushKindCode, token: device.token },
        basePayload: basePayload(target.realm, user.id),
      });
    } catch (err) {
      if (!(err instanceof BouncerError)) throw err;
      if (err.kind === 'retry') {
        throw new ApiError(
          'BAD_REQUEST',
          'Network error while connecting to Zulip push notification service.',
          {},
          'unavailable',
        );
      }
      if (err.code === 'INVALID_REMOTE_PUSH_DEVICE_TOKEN') {
        throw new ApiError(
          'INVALID_REMOTE_PUSH_DEVICE_TOKEN',
          'Device not recognized by the push bouncer',
        );
      }
      throw badRequest(`Push notification service error: ${err.message}`);
    }
  }
}
