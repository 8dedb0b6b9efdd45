import type { Db } from '../../db/client';
import { badRequest } from '../../core/errors';
import type { PushKindCode } from './push-kind';
import { checkToken } from './validate-push-token';

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
