import { accessibleUserIds } from '../../permissions/users';
import type { StateProvider } from './types';

/**
 * `user_status`: every user of the organization with a non-empty status, keyed by user id; for a
 * guest restricted by can_access_all_users_group, only the users they can access.
 */
export const userStatusState: StateProvider = {
  eventTypes: ['user_status'],
  async fetch({ ctx, realm, user }) {
    const accessible = await accessibleUserIds(ctx.db, user);
    const rows = await ctx.db.userStatus.findMany({
      where: {
        user: { realmId: realm.id, isActive: true },
        ...(accessible ? { userId: { in: [...accessible] } } : {}),
      },
    });
    const out: Record<string, Record<string, string>> = {};
    for (const r of rows) {
      const entry: Record<string, string> = {};
      if (r.statusText) entry.status_text = r.statusText;
      if (r.emojiName) {
        entry.emoji_name = r.emojiName;
        entry.emoji_code = r.emojiCode;
        entry.reaction_type = r.reactionType;
      }
      if (Object.keys(entry).length) out[String(r.userId)] = entry;
    }
    return { user_status: out };
  },
};
