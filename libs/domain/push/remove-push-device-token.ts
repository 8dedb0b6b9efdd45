import type { AppContext } from '../../core/context';
import { badRequest } from '../../core/errors';
import { enqueueJob, JobName } from '../../jobs';
import type { PushKindCode } from './push-kind';
import { checkToken } from './validate-push-token';

/** Forgets a device; with a push bouncer configured, a job unregisters it there too. */
export async function removePushDeviceToken(
  ctx: AppContext,
  userId: number,
  kind: PushKindCode,
  token: string,
): Promise<void> {
  checkToken(token, kind);
  const { count } = await ctx.db.pushDeviceToken.deleteMany({ where: { userId, kind, token } });
  if (count === 0) throw badRequest('Token does not exist');
  if (ctx.config.pushBouncer) {
    await enqueueJob(ctx, JobName.PUSH_DEVICE, {
      op: 'unregister',
      userId,
      kind,
      token,
      appId: null,
    });
  }
}
