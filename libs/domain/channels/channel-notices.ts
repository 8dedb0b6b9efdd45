import type { Realm, User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { findNotificationBot } from '../bots/notification-bot';
import type { AppContext } from '../../core/context';
import { prepareMessage, writeMessage } from '../messages/send-message';

/** Zulip's topic for notices about a channel's own lifecycle and settings. */
export const CHANNEL_EVENTS_TOPIC = 'channel events';

/** Zulip's silent mention of a user, as its notices name whoever acted. */
export const silentMention = (user: Pick<User, 'id' | 'fullName'>) =>
  `@_**${user.fullName}|${user.id}**`;

export interface ChannelNotice {
  realm: Realm;
  channelId: number;
  topic: string;
  content: string;
  /** Users whose copies start read (Zulip marks the acting user's copy read). */
  readBy?: number[];
}

/**
 * A message from the organization's notification bot to a channel, written through the normal
 * send path in the caller's transaction, so it commits with the change it reports and reaches
 * subscribers as `message` events. Returns its ID, or null when the organization has no
 * notification bot. Outgoing webhooks are the caller's to enqueue after commit.
 */
export async function sendChannelNotice(
  ctx: AppContext,
  tx: Tx,
  events: EventSink,
  notice: ChannelNotice,
): Promise<number | null> {
  const bot = await findNotificationBot(tx, notice.realm.id);
  if (!bot) return null;
  const prepared = await prepareMessage(
    ctx,
    {
      sender: bot,
      realm: notice.realm,
      type: 'stream',
      to: notice.channelId,
      topic: notice.topic,
      content: notice.content,
      clientName: 'Internal',
      systemNotice: true,
      readBy: notice.readBy,
    },
    tx,
  );
  return (await writeMessage(tx, events, prepared)).id;
}
