import type { PushBouncerConfig } from '../../core/config';
import type { AppContext } from '../../core/context';
import type { Db, Tx } from '../../db/client';
import { realmUrl } from '../realms/realm-url';
import {
  notify,
  type BouncerIdentity,
  type NotifyRequest,
  type NotifyResponse,
} from './bouncer-client';
import { PushKind } from './push-kind';
import { recordPushAvailability } from './record-push-availability';
import type { PushRealm } from './push-payloads';

/**
 * Zulip's mobile app id on iOS; tokens registered without `appid` belong to it (Zulip backfilled
 * its bouncer's tokens the same way).
 */
export const DEFAULT_IOS_APP_ID = 'org.zulip.Zulip';

/** Who the user is to the bouncer, their organization as notifications name it, and their devices. */
export interface PushTarget {
  identity: BouncerIdentity;
  realm: PushRealm;
  androidTokens: string[];
  appleTokens: string[];
}

export async function pushTarget(
  ctx: AppContext,
  db: Db | Tx,
  userId: number,
): Promise<PushTarget | null> {
  const user = await db.user.findUnique({
    where: { id: userId },
    select: {
      id: true,
      uuid: true,
      isActive: true,
      realm: { select: { id: true, uuid: true, name: true, stringId: true } },
      pushDeviceTokens: { select: { kind: true, token: true }, orderBy: { id: 'asc' } },
    },
  });
  if (!user || !user.isActive) return null;
  return {
    identity: { userId: user.id, userUuid: user.uuid, realmUuid: user.realm.uuid },
    realm: {
      id: user.realm.id,
      name: user.realm.name,
      url: realmUrl(user.realm.stringId, ctx.config),
      server: ctx.config.externalHost,
    },
    androidTokens: user.pushDeviceTokens.filter((d) => d.kind === PushKind.FCM).map((d) => d.token),
    appleTokens: user.pushDeviceTokens.filter((d) => d.kind === PushKind.APNS).map((d) => d.token),
  };
}

/**
 * Sends one notification through the bouncer, then forgets the tokens the bouncer says it
 * deleted (FCM or APNs rejected them) and records whether the organization may still push (the
 * bouncer's can_push), as Zulip does.
 */
export async function notifyThroughBouncer(
  ctx: AppContext,
  bouncer: PushBouncerConfig,
  target: PushTarget,
  payloads: Pick<NotifyRequest, 'gcm_payload' | 'apns_payload' | 'gcm_options'>,
): Promise<NotifyResponse> {
  const answer = await notify(bouncer, {
    user_id: target.identity.userId,
    user_uuid: target.identity.userUuid,
    realm_uuid: target.identity.realmUuid,
    ...payloads,
    android_devices: target.androidTokens,
    apple_devices: target.appleTokens,
  });
  if (answer.realm) await recordPushAvailability(ctx, target.realm.id, answer.realm);
  const { android_devices: android, apple_devices: apple } = answer.deleted_devices;
  if (android.length || apple.length) {
    await ctx.db.pushDeviceToken.deleteMany({
      where: {
        userId: target.identity.userId,
        OR: [
          { kind: PushKind.FCM, token: { in: android } },
          { kind: PushKind.APNS, token: { in: apple } },
        ],
      },
    });
    ctx.log.info('push', 'removed device tokens the bouncer no longer has', {
      userId: target.identity.userId,
      android: android.length,
      apple: apple.length,
    });
  }
  return answer;
}
