import type { Realm, Stream, User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import type { Db, Tx } from '../../db/client';
import type { AccessUser, Verdict } from './access';
import {
  channelNoticeRefusal,
  channelSendRefusal,
  directMessageRefusal,
  type ChannelForAccess,
} from './messages';

/*
 * The entry point's answers for sending (access.ts): to a channel (`Permission.ChannelSend`, and
 * `ChannelNotice` for the server's own notices) and to users (`DirectMessageSend`). The send path
 * has read the channel or the users already, so a request may hand them over, and the answer then
 * costs no query more than the rules themselves.
 */

/** A channel as the send rules read it. */
export type SendChannel = ChannelForAccess & Pick<Stream, 'realmId'>;

const CHANNEL_COLUMNS = {
  id: true,
  realmId: true,
  name: true,
  inviteOnly: true,
  isWebPublic: true,
  isArchived: true,
  historyPublicToSubscribers: true,
  recipientId: true,
  canSendMessageGroupId: true,
} as const;

/** Who may post to the channels `ids`, each refused with its own reason. */
export async function channelSendVerdict(
  db: Db | Tx,
  {
    user,
    ids,
    channels,
    notice,
  }: { user: AccessUser; ids: number[]; channels?: readonly SendChannel[]; notice: boolean },
): Promise<Verdict> {
  const rows: readonly SendChannel[] =
    channels ??
    (await db.stream.findMany({
      where: { id: { in: ids }, realmId: user.realmId },
      select: CHANNEL_COLUMNS,
    }));
  const reasons = new Map<number, string | null>();
  for (const channel of rows) {
    if (channel.realmId !== user.realmId || !ids.includes(channel.id)) continue;
    reasons.set(
      channel.id,
      notice ? channelNoticeRefusal(channel) : await channelSendRefusal(db, user, channel),
    );
  }
  return {
    allowed: new Set(ids.filter((id) => reasons.get(id) === null)),
    refusal: (id) => badRequest(reasons.get(id) ?? 'Invalid channel ID'),
  };
}

/** The organization settings direct messages are judged by. */
export type DirectMessageRealm = Pick<
  Realm,
  'directMessagePermissionGroupId' | 'directMessageInitiatorGroupId'
>;

/** A user as the direct-message rules read them. */
export type DirectRecipient = Pick<User, 'id' | 'isBot' | 'realmId'>;

/**
 * May the user write to the users `ids` (one conversation)? The rules judge the conversation as a
 * whole (messages.ts's `directMessageRefusal`), so either every user of it is allowed or none is.
 */
export async function directMessageVerdict(
  db: Db | Tx,
  {
    user,
    realm,
    ids,
    recipients,
  }: {
    user: AccessUser & Pick<User, 'isBot'>;
    realm: DirectMessageRealm;
    ids: number[];
    recipients?: readonly DirectRecipient[];
  },
): Promise<Verdict> {
  const given: readonly DirectRecipient[] =
    recipients ??
    (await db.user.findMany({
      where: { id: { in: ids }, realmId: user.realmId },
      select: { id: true, isBot: true, realmId: true },
    }));
  const users = given.filter((u) => u.realmId === user.realmId && ids.includes(u.id));
  const reason = await directMessageRefusal(db, realm, user, users);
  const found = new Set(users.map((u) => u.id));
  return {
    allowed: reason === null ? found : new Set(),
    refusal: (id) => badRequest(reason ?? `Invalid user ID ${id}`),
  };
}
