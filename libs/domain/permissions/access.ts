import type { Realm, User } from '../../../generated/prisma/client';
import { badRequest, notFound, type ApiError } from '../../core/errors';
import type { Db, Tx } from '../../db/client';
import {
  channelsOpenOrSubscribed,
  channelsWithReadableHistory,
  channelsWithVisibleTopics,
  ownDrafts,
  ownScheduledMessages,
  readableMessages,
  subscribedChannels,
  type QueryActor,
} from './access-queries';
import {
  channelAccess,
  NO_REALM_GROUP,
  seesAllPublicChannels,
  type ChannelAccess,
} from './channels';
import { contentEditRefusal, deleteRefusal, moveRefusal, resolveRefusal } from './messages';
import { administrableBots } from './bots';
import { groupMentionVerdict, wildcardMentionVerdict } from './mention-access';
import { groupVerdict, type GroupAccess } from './user-groups';
import {
  emojiVerdict,
  inviteVerdict,
  unsubscribedChannelVerdict,
  type ChannelKindRow,
  type EmojiRow,
  type InviteRow,
} from './row-verdicts';
import {
  administrableUsers,
  deactivatableUsers,
  emailChangeableUsers,
  readableUsers,
  roleChangeableUsers,
  type ReadableUserRow,
} from './users';
import {
  channelSendVerdict,
  directMessageVerdict,
  type DirectMessageRealm,
  type DirectRecipient,
  type SendChannel,
} from './send-access';

/**
 * The access entry point (Immich's `requireAccess({ auth, permission, ids })`): every question
 * "may this user do X to these objects" names a permission and a list of IDs, and is answered
 * as the set of IDs allowed, by one query per permission over the whole list (access-queries.ts).
 * `requireAccess` throws Zulip's error for the permission when any ID is refused. A caller that
 * has read the objects may hand them over (a send its channel or users, register its channels, a
 * listing its rows: `RowPermission`), so a hot path asks no query twice; `checkAccessMany` answers
 * several channel permissions with one query.
 */
export enum Permission {
  /** Read a message: received it, or may read its channel's history (Zulip's access_message). */
  MessageRead = 'message.read',
  /** Edit a message's content. */
  MessageEdit = 'message.edit',
  /** Move a message to another topic. */
  MessageMoveTopic = 'message.move_topic',
  /** Move a message to another channel. */
  MessageMoveChannel = 'message.move_channel',
  /** Resolve or unresolve a message's topic. */
  MessageResolveTopic = 'message.resolve_topic',
  MessageDelete = 'message.delete',
  /** Read a channel's messages (content access). */
  ChannelRead = 'channel.read',
  /** See that a channel exists, and its settings (metadata access). */
  ChannelMetadata = 'channel.metadata',
  /** See a channel and list its topics (spec 4.16): public to non-guests, or subscribed. */
  ChannelTopics = 'channel.topics',
  /** Read the messages a channel had before one subscribed, or without subscribing. */
  ChannelHistory = 'channel.history',
  ChannelAdmin = 'channel.admin',
  /**
   * See a channel one is not subscribed to, in register's lists (`never_subscribed`,
   * `unsubscribed`) and the events that keep them: one open to one, or any as an administrator.
   */
  ChannelListUnsubscribed = 'channel.list_unsubscribed',
  /** Subscribe oneself to a channel. */
  ChannelSubscribe = 'channel.subscribe',
  /** Subscribe others to a channel (the organization's `can_add_subscribers_group` counts). */
  ChannelAddSubscribers = 'channel.add_subscribers',
  /** Unsubscribe others from a channel. */
  ChannelRemoveSubscribers = 'channel.remove_subscribers',
  /**
   * See a channel's subscribers (`GET /streams/{id}/members`): a channel one sees, and of a private
   * one only with content access, or as an administrator.
   */
  ChannelSubscribers = 'channel.subscribers',
  /** Post to a channel (Zulip's access_stream_for_send_message). */
  ChannelSend = 'channel.send',
  /** Post a notice of the server's (a notification bot's) to a channel: any one not archived. */
  ChannelNotice = 'channel.notice',
  /** Tell a channel's subscribers one is typing: a channel open to one, or subscribed. */
  ChannelTyping = 'channel.typing',
  /** Change one's subscription's properties (color, muting, ...): channels one is subscribed to. */
  SubscriptionUpdate = 'subscription.update',
  /** Write to these users, one conversation (Zulip's check_can_send_direct_message). */
  DirectMessageSend = 'direct_message.send',
  ScheduledMessageUpdate = 'scheduled_message.update',
  ScheduledMessageDelete = 'scheduled_message.delete',
  DraftUpdate = 'draft.update',
  DraftDelete = 'draft.delete',
  /** Resend or revoke an invitation by email; list it in `GET /invites`. */
  InvitationManage = 'invitation.manage',
  /** Revoke a reusable invitation link. */
  MultiuseInviteManage = 'multiuse_invite.manage',
  /** Remove a custom emoji: one's own, or any as an administrator. */
  EmojiDeactivate = 'emoji.deactivate',
  /** See a user's real data (`can_access_all_users_group`); bots and oneself always. */
  UserRead = 'user.read',
  /** Edit or reactivate another user. */
  UserAdminister = 'user.administer',
  /** Deactivate a user: oneself, or another as an administrator. */
  UserDeactivate = 'user.deactivate',
  /** Change a user's role (which roles one may grant: users.ts's `requireGrantableRole`). */
  UserChangeRole = 'user.change_role',
  /** Change another user's email at once. */
  UserChangeEmail = 'user.change_email',
  /** Edit, deactivate or regenerate the key of a bot; list it in `GET /bots` and `realm_bots`. */
  BotAdminister = 'bot.administer',
  /** Rename a user group, change its settings and subgroups, deactivate it. */
  UserGroupManage = 'user_group.manage',
  /** Add others to a user group. */
  UserGroupAddMembers = 'user_group.add_members',
  /** Join a user group. */
  UserGroupJoin = 'user_group.join',
  /** Leave a user group. */
  UserGroupLeave = 'user_group.leave',
  /** Remove others from a user group. */
  UserGroupRemoveMembers = 'user_group.remove_members',
  /** Mention a user group in a new message (the group's `can_mention_group`). */
  UserGroupMention = 'user_group.mention',
  /**
   * Mention everyone in a channel (@all, @channel...) in a new message: above 15 subscribers,
   * members of the organization's `can_mention_many_users_group` only.
   */
  ChannelWildcardMention = 'channel.wildcard_mention',
}

/** The permissions that judge each message by the organization's settings and the time. */
export type MessageActionPermission =
  | Permission.MessageEdit
  | Permission.MessageMoveTopic
  | Permission.MessageMoveChannel
  | Permission.MessageResolveTopic
  | Permission.MessageDelete;

/** The permissions of sending, which take the channels as the caller has read them. */
export type SendPermission = Permission.ChannelSend | Permission.ChannelNotice;

/** The permissions judged on the objects' own rows, which the caller may hand over. */
export type RowPermission =
  | Permission.UserRead
  | Permission.ChannelListUnsubscribed
  | InvitePermission
  | Permission.EmojiDeactivate;

type InvitePermission = Permission.InvitationManage | Permission.MultiuseInviteManage;

/** The permissions asked with the user alone. */
export type UserPermission = Exclude<
  Permission,
  | MessageActionPermission
  | SendPermission
  | RowPermission
  | Permission.ChannelAddSubscribers
  | Permission.ChannelWildcardMention
  | Permission.DirectMessageSend
>;

export type AccessUser = Pick<User, 'id' | 'role' | 'realmId'>;

/** The organization settings the message actions are judged by. */
export type ActionRealm = Pick<
  Realm,
  | 'allowMessageEditing'
  | 'messageContentEditLimitSeconds'
  | 'canMoveMessagesBetweenTopicsGroupId'
  | 'canMoveMessagesBetweenChannelsGroupId'
  | 'moveMessagesWithinStreamLimitSeconds'
  | 'moveMessagesBetweenStreamsLimitSeconds'
  | 'canResolveTopicsGroupId'
  | 'canDeleteAnyMessageGroupId'
  | 'canDeleteOwnMessageGroupId'
  | 'messageContentDeleteLimitSeconds'
>;

export type AccessRequest =
  | { auth: { user: AccessUser }; permission: UserPermission; ids: readonly number[] }
  | {
      auth: { user: AccessUser; realm: Pick<Realm, 'canAddSubscribersGroupId'> };
      permission: Permission.ChannelAddSubscribers;
      ids: readonly number[];
    }
  | {
      auth: { user: AccessUser };
      permission: SendPermission;
      ids: readonly number[];
      /** The channels as the caller has read them (its own organization's), not read again. */
      channels?: readonly SendChannel[];
    }
  | {
      auth: { user: AccessUser; realm: Pick<Realm, 'canMentionManyUsersGroupId'> };
      permission: Permission.ChannelWildcardMention;
      ids: readonly number[];
    }
  | {
      auth: { user: AccessUser };
      permission: Permission.ChannelListUnsubscribed;
      ids: readonly number[];
      /** The channels as the caller has read them, not read again. */
      channels?: readonly ChannelKindRow[];
    }
  | {
      auth: { user: AccessUser };
      permission: Permission.UserRead;
      ids: readonly number[];
      /** The users as the caller has read them, not read again. */
      users?: readonly ReadableUserRow[];
    }
  | {
      auth: { user: AccessUser };
      permission: InvitePermission;
      ids: readonly number[];
      /** The invitations (or, for `MultiuseInviteManage`, links) as the caller has read them. */
      invites?: readonly InviteRow[];
    }
  | {
      auth: { user: AccessUser };
      permission: Permission.EmojiDeactivate;
      ids: readonly number[];
      /** The emoji as the caller has read them, not read again. */
      emoji?: readonly EmojiRow[];
    }
  | {
      auth: { user: AccessUser & Pick<User, 'isBot'>; realm: DirectMessageRealm };
      permission: Permission.DirectMessageSend;
      ids: readonly number[];
      /** The users as the caller has read them, not read again. */
      recipients?: readonly DirectRecipient[];
    }
  | {
      auth: { user: AccessUser; realm: ActionRealm };
      permission: MessageActionPermission;
      ids: readonly number[];
      /** The instant the time limits are measured at (the action's own); now by default. */
      now?: Date;
    };

/** The IDs allowed, and the error for one refused. */
export interface Verdict {
  allowed: Set<number>;
  refusal: (id: number) => ApiError;
}

/** Zulip's answer for a message one may not read: as if it did not exist. */
export const invalidMessage = () => badRequest('Invalid message(s)');
const invalidChannel = () => badRequest('Invalid channel ID');

/** The IDs among `request.ids` the user may act on with `request.permission`. */
export async function checkAccess(db: Db | Tx, request: AccessRequest): Promise<Set<number>> {
  return (await judge(db, request)).allowed;
}

/** Throws the permission's Zulip error unless every one of `request.ids` is allowed. */
export async function requireAccess(db: Db | Tx, request: AccessRequest): Promise<void> {
  const { allowed, refusal } = await judge(db, request);
  for (const id of request.ids) if (!allowed.has(id)) throw refusal(id);
}

/**
 * The channel permissions one query answers together (channels.ts's `channelAccess`), each by one
 * ability; `SubscriptionUpdate` alone is a cheaper query of its own (access-queries.ts).
 */
const CHANNEL_PERMISSIONS = {
  [Permission.ChannelRead]: 'content',
  [Permission.ChannelMetadata]: 'metadata',
  [Permission.ChannelAdmin]: 'administer',
  [Permission.ChannelSubscribe]: 'subscribeSelf',
  [Permission.ChannelAddSubscribers]: 'addSubscribers',
  [Permission.ChannelRemoveSubscribers]: 'removeSubscribers',
  [Permission.ChannelSubscribers]: 'subscribers',
  [Permission.SubscriptionUpdate]: 'subscribed',
} as const satisfies Partial<Record<Permission, keyof ChannelAccess>>;

/** The channel permissions `checkAccessMany` answers. */
export type ChannelPermission = keyof typeof CHANNEL_PERMISSIONS;

/**
 * The IDs among `ids` allowed for each of several channel permissions, by one query for them all:
 * a listing that judges each channel several ways (`GET /streams`) asks once.
 */
export async function checkAccessMany<P extends ChannelPermission>(
  db: Db | Tx,
  {
    auth,
    permissions,
    ids,
  }: {
    auth: { user: AccessUser; realm: Pick<Realm, 'canAddSubscribersGroupId'> };
    permissions: readonly P[];
    ids: readonly number[];
  },
): Promise<Record<P, Set<number>>> {
  const unique = [...new Set(ids)].map((id) => ({ id }));
  const access = await channelAccess(db, auth.user, unique, auth.realm);
  const answer = {} as Record<P, Set<number>>;
  for (const permission of permissions) {
    const ability = CHANNEL_PERMISSIONS[permission];
    answer[permission] = new Set<number>();
    for (const [id, abilities] of access) if (abilities[ability]) answer[permission].add(id);
  }
  return answer;
}

async function judge(db: Db | Tx, request: AccessRequest): Promise<Verdict> {
  const ids = [...new Set(request.ids)];
  if (ids.length === 0) return { allowed: new Set(), refusal: invalidMessage };
  const { user } = request.auth;
  switch (request.permission) {
    case Permission.ChannelAddSubscribers: {
      const { realm } = request.auth;
      return channelVerdict(db, { user, ids, ability: 'addSubscribers', realm });
    }
    case Permission.ChannelSend:
    case Permission.ChannelNotice: {
      const notice = request.permission === Permission.ChannelNotice;
      return channelSendVerdict(db, { user, ids, channels: request.channels, notice });
    }
    case Permission.UserRead:
      return readableUsers(db, { viewer: user, ids, users: request.users });
    case Permission.ChannelListUnsubscribed:
      return unsubscribedChannelVerdict(db, { user, ids, channels: request.channels });
    case Permission.InvitationManage:
    case Permission.MultiuseInviteManage: {
      const table =
        request.permission === Permission.InvitationManage ? 'invitation' : 'multiuseInvite';
      return inviteVerdict(db, { user, ids, table, invites: request.invites });
    }
    case Permission.EmojiDeactivate:
      return emojiVerdict(db, { user, ids, emoji: request.emoji });
    case Permission.ChannelWildcardMention:
      return wildcardMentionVerdict(db, { user, realm: request.auth.realm, ids });
    case Permission.DirectMessageSend:
      return directMessageVerdict(db, { ...request.auth, ids, recipients: request.recipients });
    case Permission.MessageEdit:
    case Permission.MessageMoveTopic:
    case Permission.MessageMoveChannel:
    case Permission.MessageResolveTopic:
    case Permission.MessageDelete:
      return messageActionVerdict(db, request, ids);
    default:
      return userVerdict(db, user, request.permission, ids);
  }
}

type SetQuery = (db: Db | Tx, actor: QueryActor, ids: number[]) => Promise<Set<number>>;
type Refusal = (id: number) => ApiError;

const noScheduledMessage = () => notFound('Scheduled message does not exist');
const noDraft = () => notFound('Draft does not exist');

/** The channel permissions asked one at a time with the user alone, by channels.ts's rules. */
type ChannelAbilityPermission = Exclude<
  ChannelPermission,
  Permission.ChannelAddSubscribers | Permission.SubscriptionUpdate
>;

/** The permissions about users and bots, answered by users.ts and bots.ts. */
const PEOPLE_RULES = {
  [Permission.UserAdminister]: administrableUsers,
  [Permission.UserDeactivate]: deactivatableUsers,
  [Permission.UserChangeRole]: roleChangeableUsers,
  [Permission.UserChangeEmail]: emailChangeableUsers,
  [Permission.BotAdminister]: administrableBots,
} as const satisfies Partial<
  Record<UserPermission, (db: Db | Tx, user: AccessUser, ids: number[]) => Promise<Verdict>>
>;

/** The permissions answered by the user-group rules of user-groups.ts, each by one ability. */
const GROUP_ABILITIES = {
  [Permission.UserGroupManage]: 'manage',
  [Permission.UserGroupAddMembers]: 'addOthers',
  [Permission.UserGroupJoin]: 'join',
  [Permission.UserGroupLeave]: 'leave',
  [Permission.UserGroupRemoveMembers]: 'removeOthers',
} as const satisfies Partial<Record<UserPermission, keyof GroupAccess>>;

type SetPermission = Exclude<
  UserPermission,
  | ChannelAbilityPermission
  | keyof typeof PEOPLE_RULES
  | keyof typeof GROUP_ABILITIES
  | Permission.UserGroupMention
>;

/** The permissions answered by one set query of access-queries.ts, and each one's refusal. */
const SET_RULES: Record<SetPermission, readonly [SetQuery, Refusal]> = {
  [Permission.MessageRead]: [readableMessages, invalidMessage],
  [Permission.ChannelHistory]: [channelsWithReadableHistory, invalidChannel],
  [Permission.ChannelTopics]: [channelsWithVisibleTopics, invalidChannel],
  [Permission.ChannelTyping]: [channelsOpenOrSubscribed, invalidChannel],
  [Permission.SubscriptionUpdate]: [
    subscribedChannels,
    (id: number) => badRequest(`Not subscribed to channel ID ${id}`),
  ],
  [Permission.ScheduledMessageUpdate]: [ownScheduledMessages, noScheduledMessage],
  [Permission.ScheduledMessageDelete]: [ownScheduledMessages, noScheduledMessage],
  [Permission.DraftUpdate]: [ownDrafts, noDraft],
  [Permission.DraftDelete]: [ownDrafts, noDraft],
};

/** The permissions asked with the user alone. */
async function userVerdict(
  db: Db | Tx,
  user: AccessUser,
  permission: UserPermission,
  ids: number[],
): Promise<Verdict> {
  const actor: QueryActor = {
    id: user.id,
    realmId: user.realmId,
    seesAllPublic: seesAllPublicChannels(user),
  };
  switch (permission) {
    case Permission.ChannelRead:
    case Permission.ChannelMetadata:
    case Permission.ChannelAdmin:
    case Permission.ChannelSubscribe:
    case Permission.ChannelRemoveSubscribers:
    case Permission.ChannelSubscribers:
      return channelVerdict(db, { user, ids, ability: CHANNEL_PERMISSIONS[permission] });
    case Permission.UserAdminister:
    case Permission.UserDeactivate:
    case Permission.UserChangeRole:
    case Permission.UserChangeEmail:
    case Permission.BotAdminister:
      return PEOPLE_RULES[permission](db, user, ids);
    case Permission.UserGroupManage:
    case Permission.UserGroupAddMembers:
    case Permission.UserGroupJoin:
    case Permission.UserGroupLeave:
    case Permission.UserGroupRemoveMembers:
      return groupVerdict(db, user, GROUP_ABILITIES[permission], ids);
    case Permission.UserGroupMention:
      return groupMentionVerdict(db, user, ids);
    default: {
      const [query, refusal] = SET_RULES[permission];
      return { allowed: await query(db, actor, ids), refusal };
    }
  }
}

/**
 * The channel rules of channels.ts (`channelAccess`), as a set of channel IDs. `realm` matters to
 * `addSubscribers` alone (the organization's `can_add_subscribers_group`).
 */
async function channelVerdict(
  db: Db | Tx,
  {
    user,
    ids,
    ability,
    realm = NO_REALM_GROUP,
  }: {
    user: AccessUser;
    ids: number[];
    ability: keyof ChannelAccess;
    realm?: Pick<Realm, 'canAddSubscribersGroupId'>;
  },
): Promise<Verdict> {
  const access = await channelAccess(
    db,
    user,
    ids.map((id) => ({ id })),
    realm,
  );
  const allowed = new Set(ids.filter((id) => access.get(id)?.[ability]));
  // A channel one cannot see answers like a missing one, even to an administrator's question.
  const refusal = (id: number) =>
    ability === 'administer' && access.get(id)?.metadata
      ? badRequest('You do not have permission to administer this channel.')
      : invalidChannel();
  return { allowed, refusal };
}

/**
 * Edits, moves and deletions, judged per message by the organization's settings and the time
 * (Zulip's check_edit_message, check_update_message and validate_can_delete_message), each with
 * its own words for a refusal.
 */
async function messageActionVerdict(
  db: Db | Tx,
  request: Extract<AccessRequest, { permission: MessageActionPermission }>,
  ids: number[],
): Promise<Verdict> {
  const { user, realm } = request.auth;
  const now = request.now ?? new Date();
  const messages = await db.message.findMany({
    where: { id: { in: ids }, realmId: user.realmId },
    select: { id: true, senderId: true, dateSent: true },
  });
  const reasons = new Map<number, string | null>();
  for (const message of messages) {
    reasons.set(
      message.id,
      await messageActionRefusal(db, request.permission, {
        realm,
        user,
        message,
        now,
      }),
    );
  }
  const allowed = new Set(ids.filter((id) => reasons.get(id) === null));
  return {
    allowed,
    refusal: (id) => {
      const reason = reasons.get(id);
      return reason ? badRequest(reason) : invalidMessage();
    },
  };
}

interface MessageAction {
  realm: ActionRealm;
  user: AccessUser;
  message: { senderId: number; dateSent: Date };
  now: Date;
}

function messageActionRefusal(
  db: Db | Tx,
  permission: MessageActionPermission,
  { realm, user, message, now }: MessageAction,
): Promise<string | null> {
  switch (permission) {
    case Permission.MessageEdit:
      return Promise.resolve(contentEditRefusal({ realm, editor: user, message, now }));
    case Permission.MessageMoveTopic:
      return moveRefusal(db, { realm, mover: user, message, kind: 'topic', now });
    case Permission.MessageMoveChannel:
      return moveRefusal(db, { realm, mover: user, message, kind: 'channel', now });
    case Permission.MessageResolveTopic:
      return resolveRefusal(db, { realm, user });
    case Permission.MessageDelete:
      return deleteRefusal(db, { realm, user, message, now });
  }
}
