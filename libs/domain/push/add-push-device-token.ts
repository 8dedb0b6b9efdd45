import type { AppContext } from '../../core/context';
import { badRequest } from '../../core/errors';
import { Jobs, writeJob } from '../../jobs';
import type { PushKindCode } from './push-kind';
import { checkToken } from './validate-push-token';

const APP_ID = /^[.a-zA-Z0-9-]+$/;

/**
 * Registers a device for push notifications; registering it again only refreshes it. With a
 * push bouncer configured, a job written with the row registers the token with it
 * (sync-push-device.ts).
 */
export async function addPushDeviceToken(
  ctx: AppContext,
  {
    userId,
    kind,
    token,
    appId,
  }: { userId: number; kind: PushKindCode; token: string; appId: string | null },
): Promise<void> {
  checkToken(token, kind);
  if (appId !== null && !APP_ID.test(appId)) throw badRequest('Invalid app ID');
  const bouncer = ctx.config.pushBouncer;
  await ctx.db.$transaction(async (tx) => {
    await tx.pushDeviceToken.upsert({
      where: { userId_kind_token: { userId, kind, token } },
      create: { userId, kind, token, appId },
      update: { appId, lastUpdated: new Date() },
    });
    if (bouncer)
      await writeJob(tx, Jobs.pushDevice, { op: 'register', userId, kind, token, appId });
  });
}
