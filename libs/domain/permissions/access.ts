import type { Realm, User } from '../../../generated/prisma/client';
import { badRequest, notFound, type ApiError } from '../../core/errors';
import type { Db, Tx } from '../../db/client';
import {
  channelsWithReadableHistory,
  channelsWithVisibleTopics,
  ownScheduledMessages,
  readableMessages,
  type QueryActor,
} from './access-queries';
import { channelAccess, seesAllPublicChannels } from './channels';
import { contentEditRefusal, deleteRefusal, moveRefusal, resolveRefusal } from './messages';

/**
 * The access entry point (Immich's `requireAccess({ auth, permission, ids })`): every question
 * "may this user do X to these objects" names a permission and a list of IDs, and is answered
 * as the set of IDs allowed, by one query per permission over the whole list (access-queries.ts).
 * `requireAccess` throws Zulip's error for the permission when any ID is refused.
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
  ScheduledMessageUpdate = 'scheduled_message.update',
  ScheduledMessageDelete = 'scheduled_message.delete',
}

/** The permissions that judge each message by the organization's settings and the time. */
export type MessageActionPermission =
  | Permission.MessageEdit
  | Permission.MessageMoveTopic
  | Permission.MessageMoveChannel
  | Permission.MessageResolveTopic
  | Permission.MessageDelete;

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
  | {
      auth: { user: AccessUser };
      permission: Exclude<Permission, MessageActionPermission>;
      ids: readonly number[];
    }
  | {
      auth: { user: AccessUser; realm: ActionRealm };
      permission: MessageActionPermission;
      ids: readonly number[];
      /** The instant the time limits are measured at (the action's own); now by default. */
      now?: Date;
    };

/** The IDs allowed, and the error for one refused. */
interface Verdict {
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

async function judge(db: Db | Tx, request: AccessRequest): Promise<Verdict> {
  const ids = [...new Set(request.ids)];
  if (ids.length === 0) return { allowed: new Set(), refusal: invalidMessage };
  const { user } = request.auth;
  const actor: QueryActor = {
    id: user.id,
    realmId: user.realmId,
    seesAllPublic: seesAllPublicChannels(user),
  };
  switch (request.permission) {
    case Permission.MessageRead:
      return { allowed: await readableMessages(db, actor, ids), refusal: invalidMessage };
    case Permission.ChannelHistory:
      return {
        allowed: await channelsWithReadableHistory(db, actor, ids),
        refusal: invalidChannel,
      };
    case Permission.ChannelTopics:
      return { allowed: await channelsWithVisibleTopics(db, actor, ids), refusal: invalidChannel };
    case Permission.ChannelRead:
      return channelVerdict(db, user, ids, 'content');
    case Permission.ChannelMetadata:
      return channelVerdict(db, user, ids, 'metadata');
    case Permission.ChannelAdmin:
      return channelVerdict(db, user, ids, 'administer');
    case Permission.ScheduledMessageUpdate:
    case Permission.ScheduledMessageDelete:
      return {
        allowed: await ownScheduledMessages(db, actor, ids),
        refusal: () => notFound('Scheduled message does not exist'),
      };
    default:
      return messageActionVerdict(db, request, ids);
  }
}

/** The channel rules of channels.ts (`channelAccess`), as a set of channel IDs. */
async function channelVerdict(
  db: Db | Tx,
  user: AccessUser,
  ids: number[],
  ability: 'content' | 'metadata' | 'administer',
): Promise<Verdict> {
  const access = await channelAccess(
    db,
    user,
    ids.map((id) => ({ id })),
    { canAddSubscribersGroupId: null },
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
