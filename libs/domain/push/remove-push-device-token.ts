import type { AppContext } from '../../core/context';
import { badRequest } from '../../core/errors';
import { Jobs, writeJob } from '../../jobs';
import type { PushKindCode } from './push-kind';
import { checkToken } from './validate-push-token';

/** Forgets a device; with a push bouncer configured, a job written with it unregisters it there too. */
export async function removePushDeviceToken(
  ctx: AppContext,
  userId: number,
  kind: PushKindCode,
  token: string,
): Promise<void> {
  checkToken(token, kind);
  const bouncer = ctx.config.pushBouncer;
  await ctx.db.$transaction(async (tx) => {
    const { count } = await tx.pushDeviceToken.deleteMany({ where: { userId, kind, token } });
    if (count === 0) throw badRequest('Token does not exist');
    if (bouncer) {
      await writeJob(tx, Jobs.pushDevice, { op: 'unregister', userId, kind, token, appId: null });
    }
  });
}
