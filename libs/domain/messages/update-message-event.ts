import type { Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { linkifyTopic } from '../../markdown';
import type { EventFields } from '../../protocol/formatter';
import { updateMessageEvent, type UpdateMessageEvent } from '../../protocol/events/update-message';
import { isPrivateChannel } from '../permissions/channel-kinds';
import { messageAudience } from '../permissions/message-audience';
import type { EditRequest } from './edit-request';
import { Flag, flagNames } from './flags';
import { isMeMessage } from './format-message';
import { groupByFlags } from './recipient-flags';

interface UpdateEventInput {
  request: EditRequest;
  movedIds: number[];
  /** Who could read the moved messages before the edit. */
  audienceBefore: number[];
}

/**
 * Zulip's `update_message` event: `stream_id`/`stream_name` name the channel the messages were in,
 * `new_stream_id` where they went, and `topic_links` are recomputed for the new topic. Each user's
 * event carries their own flags for the edited message.
 */
export async function emitUpdateMessage(tx: Tx, events: EventSink, e: UpdateEventInput) {
  const { request } = e;
  const event = await eventFields(tx, e);
  const audience = [...new Set([...e.audienceBefore, ...(await messageAudience(tx, e.movedIds))])];
  const rows = await tx.userMessage.findMany({
    where: { messageId: request.message.id, userId: { in: audience } },
    select: { userId: true, flags: true },
  });
  const flagsByUser = new Map(rows.map((r) => [r.userId, Number(r.flags)]));
  // Those who lost their copy in a private channel got `delete_message` instead; anyone else
  // without a row reads the message from history, with historical flags.
  const intoPrivate = request.newStream !== null && isPrivateChannel(request.newStream);
  const stillSees = audience.filter((id) => flagsByUser.has(id) || !intoPrivate);
  const bits = stillSees.map((id) => flagsByUser.get(id) ?? Flag.read | Flag.historical);
  for (const [flagBits, users] of groupByFlags(stillSees, bits)) {
    await events.emit(
      request.realm.id,
      updateMessageEvent({ ...event, flags: flagNames(flagBits) }),
      users,
    );
  }
}

async function eventFields(
  tx: Tx,
  { request, movedIds }: UpdateEventInput,
): Promise<EventFields<Omit<UpdateMessageEvent, 'flags'>>> {
  const { message, oldStream, newStream, newTopic, content } = request;
  const event: EventFields<Omit<UpdateMessageEvent, 'flags'>> = {
    user_id: request.user.id,
    edit_timestamp: Math.floor(request.now.getTime() / 1000),
    message_id: message.id,
    message_ids: [...movedIds].sort((a, b) => a - b),
    rendering_only: false,
  };
  if (oldStream) {
    event.stream_id = oldStream.id;
    event.stream_name = oldStream.name;
  }
  if (content) {
    Object.assign(event, {
      orig_content: message.content,
      orig_rendered_content: message.renderedContent,
      content: content.text,
      rendered_content: content.rendered.html,
      is_me_message: isMeMessage(content.text),
    });
  }
  if (newTopic !== undefined || newStream) {
    const linkifiers = await tx.realmFilter.findMany({
      where: { realmId: request.realm.id },
      orderBy: { order: 'asc' },
    });
    const topic = newTopic ?? message.subject;
    Object.assign(event, {
      propagate_mode: request.propagateMode,
      orig_subject: message.subject,
      subject: topic,
      topic_links: linkifyTopic(
        topic,
        linkifiers.map((l) => ({ id: l.id, pattern: l.pattern, urlTemplate: l.urlTemplate })),
      ),
    });
    if (newStream) event.new_stream_id = newStream.id;
  }
  return event;
}
