import { accepts, defineFormatter, type ClientForm } from '../formatter';
import type { ApiMessage } from '../message-payload';
import { matchesQueueNarrow } from '../narrow';
import { EMPTY_TOPIC_FALLBACK_NAME } from '../topics';

/**
 * A new message. One event serves every recipient, whatever their flags and whichever way their
 * queues were registered: `message` is formatted for apply_markdown=true and client_gravatar=false
 * (`content` is the rendered HTML, `avatar_url` always set, `subject` the stored topic, '' for the
 * empty topic), and `flags` are those of every recipient not listed in `internal.userFlags`.
 */
export interface MessageEvent {
  type: 'message';
  message: ApiMessage;
  flags: string[];
  internal: {
    /** The Markdown source, for queues registered with apply_markdown=false. */
    rawContent: string;
    /** Recipients whose flags differ from `flags`, by user id. */
    userFlags?: Record<string, string[]>;
    /** A message to a public channel also reaches all_public_streams queues, with no flags. */
    publicChannel?: boolean;
    /** The queue that sent it learns `local_message_id` (Zulip's local echo). */
    senderQueueId?: string;
    localId?: string;
  };
}

/** What a queue receives. */
export interface MessageClientEvent extends ClientForm<MessageEvent> {
  local_message_id?: string;
}

export interface MessageEventInput {
  message: ApiMessage;
  flags: string[];
  rawContent: string;
  userFlags?: Record<string, string[]>;
  publicChannel: boolean;
  senderQueueId?: string;
  localId?: string;
}

export function messageEvent(input: MessageEventInput): MessageEvent {
  const { message, flags, publicChannel, ...internal } = input;
  // JSON leaves out the undefined ones: an envelope carries only what applies.
  return {
    type: 'message',
    message,
    flags,
    internal: { ...internal, publicChannel: publicChannel || undefined },
  };
}

export const messageFormatter = defineFormatter({
  reads: ['eventTypes', 'narrow', 'applyMarkdown', 'clientGravatar', 'capabilities'],
  owner(queue, event: MessageEvent, context) {
    const flags = context.isRecipient
      ? (event.internal.userFlags?.[String(queue.userId)] ?? event.flags)
      : [];
    const { senderQueueId, localId } = event.internal;
    return [flags, senderQueueId === queue.id ? localId : undefined] as const;
  },
  format(event, settings, [flags, localMessageId]): MessageClientEvent[] {
    if (!accepts(settings, 'message')) return [];
    const message = { ...event.message };
    if (settings.narrow.length && !matchesQueueNarrow(settings.narrow, message, flags)) return [];
    if (!settings.applyMarkdown) {
      message.content = event.internal.rawContent;
      message.content_type = 'text/x-markdown';
    } else {
      message.content_type = 'text/html';
    }
    if (
      settings.clientGravatar &&
      typeof message.avatar_url === 'string' &&
      message.avatar_url.startsWith('https://secure.gravatar.com/')
    ) {
      message.avatar_url = null;
    }
    if (
      !settings.capabilities.empty_topic_name &&
      message.type === 'stream' &&
      message.subject === ''
    ) {
      message.subject = EMPTY_TOPIC_FALLBACK_NAME;
    }
    const out: MessageClientEvent = { type: 'message', message, flags: [...flags] };
    if (localMessageId !== undefined) out.local_message_id = localMessageId;
    return [out];
  },
});
