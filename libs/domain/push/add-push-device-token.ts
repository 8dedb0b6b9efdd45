import type { Db } from '../../db/client';
import { badRequest } from '../../core/errors';
import type { PushKindCode } from './push-kind';
import { checkToken } from './validate-push-token';

const APP_ID = /^[.a-zA-Z0-9-]+$/;

/** Registers a device for push notifications; registering it again only refreshes it. */
export async function addPushDeviceToken(
  db: Db,
  userId: number,
  kind: PushKindCode,
  token: string,
  appId: string | null,
): Promise<void> {
  checkToken(token, kind);
  if (appId !== null && !APP_ID.test(appId)) throw badRequest('Invalid app ID');
  await db.pushDeviceToken.upsert({
    where: { userId_kind_token: { userId, kind, token } },
    create: { userId, kind, token, appId },
    update: { appId, lastUpdated: new Date() },
  });
}
