import { call } from '../../api';
import { dmKey, messageDmKey } from '../../narrow';
import { store } from '../../store';
import type { Message, Narrow } from '../../types';

/** The narrow a message's recipient bar links to. */
export function narrowOf(m: Message, me: number, withTopic = true): Narrow {
  if (m.type === 'stream')
    return { kind: 'stream', streamId: m.stream_id!, topic: withTopic ? m.subject : undefined };
  return { kind: 'dm', userIds: messageDmKey(m, me).split(',').map(Number) };
}

/** The message's address, as Zulip's web app links to it. */
export function permalink(m: Message, me: number): string {
  const where =
    m.type === 'stream'
      ? `channel/${m.stream_id}/topic/${encodeURIComponent(m.subject)}`
      : `dm/${dmKey(messageDmKey(m, me).split(',').map(Number), me)}`;
  return `${location.origin}${location.pathname}#narrow/${where}/near/${m.id}`;
}

/** Message actions shared by the row's buttons and the keyboard. */
export const messageActions = {
  star: (m: Message) =>
    call('POST', '/messages/flags', {
      messages: [m.id],
      op: m.flags?.includes('starred') ? 'remove' : 'add',
      flag: 'starred',
    }),
  markUnread: (m: Message) =>
    call('POST', '/messages/flags', { messages: [m.id], op: 'remove', flag: 'read' }),
  /** Quotes the message into the compose box, as Zulip's "Quote and reply". */
  quote: async (m: Message) => {
    const { message } = await call<{ message: { content: string } }>('GET', `/messages/${m.id}`, {
      apply_markdown: false,
    });
    const fence = message.content.includes('```') ? '````' : '```';
    const text = `@_**${m.sender_full_name}|${m.sender_id}** [said](${permalink(m, store.me)}):\n${fence}quote\n${message.content}\n${fence}\n`;
    store.requestCompose(narrowOf(m, store.me), text);
  },
};
