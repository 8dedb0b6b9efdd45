import { canAddSubscribersInRealm, canCreateChannel } from '../../permissions/channels';
import { canInviteByEmail } from '../../permissions/invites';
import {
  isRealmAdmin,
  isRealmGuest,
  isRealmModerator,
  isRealmOwner,
} from '../../permissions/roles';
import { avatarUrl } from '../../users/avatar';
import { formatUser } from '../../users/format-user';
import { listUsers } from '../../users/list-users';
import { userListRowsInSnapshot } from '../../users/user-list-rows';
import type { Tx } from '../../../db/client';
import type { StateProvider } from './types';

/**
 * The server's own bots (the notification bot), which Zulip's clients know as cross-realm bots,
 * by name, as each sees itself (so with its delivery email), owned by no one.
 */
async function crossRealmBots(db: Tx, realmId: number) {
  const bots = await db.user.findMany({
    where: { realmId, isSystemBot: true },
    orderBy: [{ fullName: 'asc' }, { id: 'asc' }],
  });
  return bots.map((bot) => formatUser(bot, { viewer: bot, clientGravatar: false }));
}

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
      rows: await userListRowsInSnapshot(ctx.db, realm.id),
    });
    // One after another: the snapshot transaction has one connection.
    const publicChannels = await canCreateChannel(ctx.db, user, realm, 'public');
    const privateChannels = await canCreateChannel(ctx.db, user, realm, 'private');
    const webPublicChannels = await canCreateChannel(ctx.db, user, realm, 'web-public');
    const subscribeOthers = await canAddSubscribersInRealm(ctx.db, user, realm);
    const invite = await canInviteByEmail(ctx.db, user, realm);
    return {
      realm_users: users.filter((u) => u.is_active),
      realm_non_active_users: users.filter((u) => !u.is_active),
      cross_realm_bots: await crossRealmBots(ctx.db, realm.id),
      avatar_source: user.avatarSource,
      avatar_url: avatarUrl(user),
      avatar_url_medium: avatarUrl(user, true),
      can_create_public_streams: publicChannels,
      can_create_private_streams: privateChannels,
      can_create_web_public_streams: webPublicChannels,
      // Deprecated since feature level 102, still sent for old mobile apps.
      can_create_streams: publicChannels || privateChannels || webPublicChannels,
      can_subscribe_other_users: subscribeOthers,
      can_invite_others_to_realm: invite,
      is_admin: isRealmAdmin(user),
      is_owner: isRealmOwner(user),
      is_billing_admin: false,
      is_moderator: isRealmModerator(user),
      is_guest: isRealmGuest(user),
      user_id: user.id,
      email: user.email,
      delivery_email: user.deliveryEmail,
      full_name: user.fullName,
    };
  },
};
