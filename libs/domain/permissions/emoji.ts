import type { Realm, RealmEmoji, User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { isUserInGroup } from './groups';
import { isRealmGuest } from './roles';
import { canAdministerUsers } from './users';

/** May the user add custom emoji (`can_add_custom_emoji_group`; never guests)? */
export async function canAddCustomEmoji(
  db: Db | Tx,
  user: Pick<User, 'id' | 'role'>,
  realm: Pick<Realm, 'canAddCustomEmojiGroupId'>,
): Promise<boolean> {
  if (isRealmGuest(user)) return false;
  if (realm.canAddCustomEmojiGroupId === null) return canAdministerUsers(user);
  return isUserInGroup(db, user.id, realm.canAddCustomEmojiGroupId);
}

/** A custom emoji is removed by its author or an administrator (`Permission.EmojiDeactivate`). */
export const canDeactivateEmoji = (
  actor: Pick<User, 'id' | 'role'>,
  emoji: Pick<RealmEmoji, 'authorId'>,
): boolean => canAdministerUsers(actor) || emoji.authorId === actor.id;
