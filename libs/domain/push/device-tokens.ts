import type { Db } from '../../db/client';
import { badRequest } from '../../core/errors';

export const PushKind = { APNS: 1, FCM: 2 } as const;
export type PushKindCode = (typeof PushKind)[keyof typeof PushKind];

const APP_ID = /^[.a-zA-Z0-9-]+$/;
const HEX = /^[0-9a-fA-F]+$/;

function checkToken(token: string, kind: PushKindCode): void {
  if (token === '' || token.length > 4096) throw badRequest('Empty or invalid length token');
  // APNs device tokens are hex strings; anything else would be refused by Apple.
  if (kind === PushKind.APNS && (!HEX.test(token) || token.length % 2 !== 0)) {
    throw badRequest('Invalid APNS token');
  }
}

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

export async function removePushDeviceToken(
  db: Db,
  userId: number,
  kind: PushKindCode,
  token: string,
): Promise<void> {
  checkToken(token, kind);
  const { count } = await db.pushDeviceToken.deleteMany({ where: { userId, kind, token } });
  if (count === 0) throw badRequest('Token does not exist');
}
