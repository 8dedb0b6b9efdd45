import type { Db } from '../../db/client';
import { badRequest } from '../../core/errors';
import { equalsIgnoringCase } from '../../db/text-match';

/**
 * Resolves the `{user_id}` / `{email}` path segment of `GET /users/...` and
 * `GET /users/.../presence`: an integer is a user ID, anything else an API or delivery email.
 */
export async function userIdFromPathSegment(
  db: Db,
  realmId: number,
  segment: string,
): Promise<number> {
  if (/^\d+$/.test(segment)) return Number(segment);
  const email = segment.trim().toLowerCase();
  const user = await db.user.findFirst({
    where: { realmId, OR: [{ email }, { deliveryEmail: equalsIgnoringCase(email) }] },
    select: { id: true },
  });
  if (!user) throw badRequest('No such user');
  return user.id;
}
