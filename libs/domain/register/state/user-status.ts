import { accessibleUserIds } from '../../permissions/users';
import { formatUserStatus, type ApiUserStatus } from '../../user-status/format-status';
import type { StateProvider } from './types';

/**
 * `user_status`: every active user of the organization whose status row shows something (text,
 * emoji, or `away` for an invisible user), keyed by user id (Zulip's get_all_users_status_dict);
 * for a guest restricted by can_access_all_users_group, only the users they can access.
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
      include: { user: { select: { presenceEnabled: true } } },
    });
    const out: Record<string, ApiUserStatus> = {};
    for (const row of rows) {
      const status = formatUserStatus(row, row.user.presenceEnabled);
      if (Object.keys(status).length) out[String(row.userId)] = status;
    }
    return { user_status: out };
  },
};
