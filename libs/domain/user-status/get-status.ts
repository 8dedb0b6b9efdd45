import type { Db } from '../../db/client';
import { badRequest, insufficientPermission } from '../../http/errors';
import { canAccessUser } from '../permissions/users';

/** A user's status as `GET /users/{id}/status` shows it: only the fields that are set. */
export interface ApiUserStatus {
  away?: boolean;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

/** `GET /users/{user_id}/status`, for users the viewer can access (can_access_all_users_group). */
export async function getUserStatus(
  db: Db,
  viewer: { id: number; realmId: number; role: number },
  userId: number,
): Promise<ApiUserStatus> {
  const user = await db.user.findFirst({
    where: { id: userId, realmId: viewer.realmId },
    include: { status: true },
  });
  if (!user) throw badRequest('No such user');
  if (!(await canAccessUser(db, viewer, user))) throw insufficientPermission();
  const result: ApiUserStatus = {};
  if (!user.presenceEnabled) result.away = true;
  const status = user.status;
  if (status?.statusText) result.status_text = status.statusText;
  if (status?.emojiName) {
    result.emoji_name = status.emojiName;
    result.emoji_code = status.emojiCode;
    result.reaction_type = status.reactionType;
  }
  return result;
}
