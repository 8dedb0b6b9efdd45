import type { Realm, Stream, User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { huddleHash } from '../messages/addressees';
import { isOpenPublicChannel } from './channels';
import { everyoneGroupId, groupsContainingUser } from './groups';
import { isAtLeastModerator } from './roles';
import { accessibleUserIds } from './users';

type Reader = Db | Tx;

export type ChannelForAccess = Pick<
  Stream,
  | 'id'
  | 'name'
  | 'inviteOnly'
  | 'isWebPublic'
  | 'isArchived'
  | 'historyPublicToSubscribers'
  | 'recipientId'
  | 'canSendMessageGroupId'
>;

export async function isSubscribed(
  db: Reader,
  userId: number,
  recipientId: number | null,
): Promise<boolean> {
  if (recipientId === null) return false;
  const sub = await db.subscription.findUnique({
    where: { userId_recipientId: { userId, recipientId } },
    select: { active: true },
  });
  return sub?.active ?? false;
}

/** Why a send to a channel is refused, or null when it is allowed (Zulip's access_stream_for_send_message). */
export async function channelSendRefusal(
  db: Reader,
  sender: Pick<User, 'id' | 'role' | 'realmId'>,
  channel: ChannelForAccess,
): Promise<string | null> {
  const archived = channelNoticeRefusal(channel);
  if (archived) return archived;
  const group = channel.canSendMessageGroupId;
  // The default, everyone in the organization, needs no query per send.
  if (group !== (await everyoneGroupId(db, sender.realmId))) {
    const allowed = await groupsContainingUser(db, sender.id, [group]);
    if (!allowed.has(group)) return 'You do not have permission to post in this channel.';
  }
  if (isOpenPublicChannel(sender, channel)) return null;
  if (await isSubscribed(db, sender.id, channel.recipientId)) return null;
  return `Not authorized to send to channel '${channel.name}'`;
}

/**
 * Why a notice of the server's (a notification bot's) to a channel is refused, or null: like
 * Zulip's system bots it may post to any channel that is not archived.
 */
export const channelNoticeRefusal = (
  channel: Pick<ChannelForAccess, 'name' | 'isArchived'>,
): string | null =>
  channel.isArchived ? `Not authorized to send to channel '${channel.name}'` : null;

const secondsSince = (date: Date, now: Date) => (now.getTime() - date.getTime()) / 1000;

/** Why editing the content of a message is refused, or null (Zulip's check_edit_message content rules). */
export function contentEditRefusal({
  realm,
  editor,
  message,
  now,
}: {
  realm: Pick<Realm, 'allowMessageEditing' | 'messageContentEditLimitSeconds'>;
  editor: Pick<User, 'id'>;
  message: { senderId: number; dateSent: Date };
  now: Date;
}): string | null {
  if (!realm.allowMessageEditing) return 'Your organization has turned off message editing';
  if (message.senderId !== editor.id) return "You don't have permission to edit this message";
  const limit = realm.messageContentEditLimitSeconds;
  // Zulip allows a grace period of 20 seconds beyond the limit.
  if (limit !== null && secondsSince(message.dateSent, now) > limit + 20) {
    return 'The time limit for editing this message has passed';
  }
  return null;
}

/** Why moving a message to another topic or channel is refused, or null. */
export async function moveRefusal(
  db: Reader,
  {
    realm,
    mover,
    message,
    kind,
    now,
  }: {
    realm: Pick<
      Realm,
      | 'canMoveMessagesBetweenTopicsGroupId'
      | 'canMoveMessagesBetweenChannelsGroupId'
      | 'moveMessagesWithinStreamLimitSeconds'
      | 'moveMessagesBetweenStreamsLimitSeconds'
    >;
    mover: Pick<User, 'id' | 'role'>;
    message: { dateSent: Date };
    kind: 'topic' | 'channel';
    now: Date;
  },
): Promise<string | null> {
  const groupId =
    kind === 'topic'
      ? realm.canMoveMessagesBetweenTopicsGroupId
      : realm.canMoveMessagesBetweenChannelsGroupId;
  const inGroup =
    groupId !== null && (await groupsContainingUser(db, mover.id, [groupId])).has(groupId);
  if (!inGroup) {
    return kind === 'topic'
      ? "You don't have permission to edit this message"
      : "You don't have permission to move this message";
  }
  // Moderators and above are not bound by the time limits.
  if (isAtLeastModerator(mover)) return null;
  const limit =
    kind === 'topic'
      ? realm.moveMessagesWithinStreamLimitSeconds
      : realm.moveMessagesBetweenStreamsLimitSeconds;
  if (limit !== null && secondsSince(message.dateSent, now) > limit + 20) {
    return kind === 'topic'
      ? "The time limit for editing this message's topic has passed."
      : "The time limit for editing this message's channel has passed";
  }
  return null;
}

/**
 * Why resolving or unresolving a topic (adding or removing the prefix) is refused, or null: it is
 * governed by `can_resolve_topics_group` alone, not by the topic-move rules and their time limit;
 * an unset group lets nobody.
 */
export async function resolveRefusal(
  db: Reader,
  { realm, user }: { realm: Pick<Realm, 'canResolveTopicsGroupId'>; user: Pick<User, 'id'> },
): Promise<string | null> {
  const groupId = realm.canResolveTopicsGroupId;
  const ok = groupId !== null && (await groupsContainingUser(db, user.id, [groupId])).has(groupId);
  return ok ? null : "You don't have permission to resolve topics.";
}

/** May the user delete the message (Zulip's validate_can_delete_message)? */
export async function deleteRefusal(
  db: Reader,
  {
    realm,
    user,
    message,
    now,
  }: {
    realm: Pick<
      Realm,
      | 'canDeleteAnyMessageGroupId'
      | 'canDeleteOwnMessageGroupId'
      | 'messageContentDeleteLimitSeconds'
    >;
    user: Pick<User, 'id'>;
    message: { senderId: number; dateSent: Date };
    now: Date;
  },
): Promise<string | null> {
  const ids = [realm.canDeleteAnyMessageGroupId, realm.canDeleteOwnMessageGroupId].filter(
    (id): id is number => id !== null,
  );
  const groups = await groupsContainingUser(db, user.id, ids);
  if (realm.canDeleteAnyMessageGroupId !== null && groups.has(realm.canDeleteAnyMessageGroupId)) {
    return null;
  }
  if (message.senderId !== user.id) return "You don't have permission to delete this message";
  if (realm.canDeleteOwnMessageGroupId === null || !groups.has(realm.canDeleteOwnMessageGroupId)) {
    return "You don't have permission to delete this message";
  }
  const limit = realm.messageContentDeleteLimitSeconds;
  if (limit !== null && secondsSince(message.dateSent, now) > limit) {
    return 'The time limit for deleting this message has passed';
  }
  return null;
}

/**
 * Why a direct message is refused, or null (Zulip's check_sender_can_access_recipients, then
 * check_can_send_direct_message). Bots may always send, and anyone may write to themselves
 * and to bots. Otherwise someone in the conversation must be in `direct_message_permission_group`,
 * and a sender outside `direct_message_initiator_group` may only write in a conversation that
 * already has messages.
 */
export async function directMessageRefusal(
  db: Reader,
  realm: Pick<Realm, 'directMessagePermissionGroupId' | 'directMessageInitiatorGroupId'>,
  sender: Pick<User, 'id' | 'realmId' | 'role' | 'isBot'>,
  recipients: { id: number; isBot: boolean }[],
): Promise<string | null> {
  const accessible = await accessibleUserIds(db, sender);
  if (accessible && recipients.some((u) => !u.isBot && !accessible.has(u.id))) {
    return 'You do not have permission to access some of the recipients.';
  }
  if (sender.isBot || recipients.every((u) => u.isBot || u.id === sender.id)) return null;

  const settingIds = [realm.directMessagePermissionGroupId, realm.directMessageInitiatorGroupId];
  const groups = await db.userGroup.findMany({
    where: { id: { in: settingIds.filter((id): id is number => id !== null) } },
    select: { id: true, name: true },
  });
  const restricting = (id: number | null): id is number =>
    id !== null && groups.find((g) => g.id === id)?.name !== 'role:everyone';

  const permissionGroup = realm.directMessagePermissionGroupId;
  if (restricting(permissionGroup)) {
    const userIds = [...new Set([sender.id, ...recipients.map((u) => u.id)])];
    const memberships = await Promise.all(
      userIds.map((id) => groupsContainingUser(db, id, [permissionGroup])),
    );
    if (!memberships.some((m) => m.has(permissionGroup))) {
      return groups.find((g) => g.id === permissionGroup)?.name === 'role:nobody'
        ? 'Direct messages are disabled in this organization.'
        : 'This conversation does not include any users who can authorize it.';
    }
  }

  const initiatorGroup = realm.directMessageInitiatorGroupId;
  if (!restricting(initiatorGroup)) return null;
  if ((await groupsContainingUser(db, sender.id, [initiatorGroup])).has(initiatorGroup)) {
    return null;
  }
  if (await conversationHasMessages(db, [sender.id, ...recipients.map((u) => u.id)])) return null;
  return 'You do not have permission to initiate direct message conversations.';
}

/** Has anyone written in the direct-message conversation of these users (sender included)? */
async function conversationHasMessages(db: Reader, userIds: number[]): Promise<boolean> {
  const group = await db.directMessageGroup.findUnique({
    where: { huddleHash: huddleHash(userIds) },
    select: { recipientId: true },
  });
  if (group?.recipientId == null) return false;
  const message = await db.message.findFirst({
    where: { recipientId: group.recipientId },
    select: { id: true },
  });
  return message !== null;
}
