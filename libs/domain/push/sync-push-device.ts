import type { AppContext } from '../../core/context';
import type { PushDevicePayload } from '../../jobs';
import { BouncerError, registerDevice, unregisterDevice } from './bouncer-client';
import { DEFAULT_IOS_APP_ID } from './push-devices';
import { PushKind } from './push-kind';

/**
 * Job handler (push-device): tells the bouncer about a device token added or removed through
 * the API. A token the bouncer refuses to register is removed here too (Zulip refuses it to
 * the client; here the client was already answered, so the token is forgotten instead).
 */
export async function syncPushDevice(ctx: AppContext, payload: PushDevicePayload): Promise<void> {
  const bouncer = ctx.config.pushBouncer;
  if (!bouncer) return;
  const user = await ctx.db.user.findUnique({
    where: { id: payload.userId },
    select: { id: true, uuid: true, realm: { select: { uuid: true } } },
  });
  if (!user) return;
  const who = { userId: user.id, userUuid: user.uuid, realmUuid: user.realm.uuid };
  if (payload.op === 'unregister') {
    await unregisterDevice(bouncer, who, { kind: payload.kind, token: payload.token });
    return;
  }
  // Removed again before this job ran: nothing to register.
  const device = await ctx.db.pushDeviceToken.findUnique({
    where: { userId_kind_token: { userId: user.id, kind: payload.kind, token: payload.token } },
  });
  if (!device) return;
  try {
    await registerDevice(bouncer, who, {
      kind: payload.kind,
      token: payload.token,
      iosAppId: payload.kind === PushKind.APNS ? (device.appId ?? DEFAULT_IOS_APP_ID) : null,
    });
  } catch (err) {
    if (!(err instanceof BouncerError) || err.kind !== 'rejected') throw err;
    await ctx.db.pushDeviceToken.deleteMany({ where: { id: device.id } });
    ctx.log.warn('push', 'push bouncer refused a device token; token removed', {
      userId: user.id,
      kind: payload.kind,
      error: err.message,
    });
  }
}
