import { avatarUrl } from '../../users/avatar';
import { listUsers } from '../../users/list-users';
import { Role } from '../../users/roles';
import type { StateProvider } from './types';

/** `realm_user`: the organization's users, split into active and deactivated, plus the caller's own identity. */
export const realmUserState: StateProvider = {
  eventTypes: ['realm_user'],
  async fetch({ ctx, user, realm, params, capabilities }) {
    const users = await listUsers(ctx, {
      viewer: user,
      realm,
      clientGravatar: params.client_gravatar,
      includeCustomProfileFields: true,
      omitInaccessible: capabilities.user_list_incomplete,
    });
    return {
      realm_users: users.filter((u) => u.is_active),
      realm_non_active_users: users.filter((u) => !u.is_active),
      cross_realm_bots: [],
      avatar_source: user.avatarSource,
      avatar_url: avatarUrl(user),
      avatar_url_medium: avatarUrl(user, true),
      is_admin: user.role <= Role.ADMINISTRATOR,
      is_owner: user.role === Role.OWNER,
      is_billing_admin: false,
      is_moderator: user.role === Role.MODERATOR,
      is_guest: user.role === Role.GUEST,
      user_id: user.id,
      email: user.email,
      delivery_email: user.deliveryEmail,
      full_name: user.fullName,
    };
  },
};
