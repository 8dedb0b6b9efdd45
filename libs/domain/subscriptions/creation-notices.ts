import type { Realm, Stream, User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { channelKindOf, isHistoryPublicToSubscribers } from '../permissions/channel-kinds';
import type { EventSink } from '../../events/outbox';
import {
  CHANNEL_EVENTS_TOPIC,
  sendChannelNotice,
  silentMention,
} from '../channels/channel-notices';
import type { AppContext } from '../../core/context';

/** Zulip's topic for announcements of new channels. */
export const NEW_CHANNELS_TOPIC = 'new channels';

/** Zulip's announcement text in the new-channel announcements channel. */
export function newChannelsAnnouncement(actor: User, created: Pick<Stream, 'name'>[]): string {
  const links = created.map((s) => `#**${s.name}**`).join(', ');
  return created.length > 1
    ? `${silentMention(actor)} created the following channels: ${links}.`
    : `${silentMention(actor)} created a new channel ${links}.`;
}

function policyName(
  stream: Pick<Stream, 'inviteOnly' | 'isWebPublic' | 'historyPublicToSubscribers'>,
) {
  const kind = channelKindOf(stream);
  if (kind !== 'private') return kind === 'web-public' ? 'Web-public' : 'Public';
  return isHistoryPublicToSubscribers(stream)
    ? 'Private, shared history'
    : 'Private, protected history';
}

/** Zulip's first message in a new channel: its kind, its creator and its description. */
export function channelCreatedNotice(
  actor: User,
  stream: Pick<Stream, 'inviteOnly' | 'isWebPublic' | 'historyPublicToSubscribers' | 'description'>,
): string {
  const description = stream.description === '' ? '*No description.*' : stream.description;
  return (
    `**${policyName(stream)}** channel created by ${silentMention(actor)}. **Description:**\n` +
    `\`\`\`\` quote\n${description}\n\`\`\`\``
  );
}

/**
 * The notification bot's messages about channels `actor` just created, in the creating
 * transaction: the announcement in the organization's new-channel announcements channel (when
 * asked for and that channel is set), then a "channel events" notice in each new channel. The
 * actor's copies start read, as in Zulip. Returns the message IDs.
 */
export async function sendChannelCreationNotices(
  ctx: AppContext,
  tx: Tx,
  events: EventSink,
  input: { realm: Realm; actor: User; created: Stream[]; announce: boolean },
): Promise<number[]> {
  const { realm, actor, created } = input;
  const notices: { channelId: number; topic: string; content: string }[] = [];
  if (input.announce && created.length && realm.newStreamAnnouncementsStreamId !== null) {
    const target = await tx.stream.findFirst({
      where: { id: realm.newStreamAnnouncementsStreamId, realmId: realm.id, isArchived: false },
      select: { id: true },
    });
    if (target) {
      notices.push({
        channelId: target.id,
        topic: NEW_CHANNELS_TOPIC,
        content: newChannelsAnnouncement(actor, created),
      });
    }
  }
  for (const stream of created) {
    notices.push({
      channelId: stream.id,
      topic: CHANNEL_EVENTS_TOPIC,
      content: channelCreatedNotice(actor, stream),
    });
  }
  const ids: number[] = [];
  for (const notice of notices) {
    const id = await sendChannelNotice(ctx, tx, events, { realm, ...notice, readBy: [actor.id] });
    if (id !== null) ids.push(id);
  }
  return ids;
}
