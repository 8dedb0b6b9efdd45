import { accepts, defineFormatter, type EventFields } from '../formatter';

export interface TypingPerson {
  user_id: number;
  email: string;
}

/** Someone started or stopped typing, to some users or in a channel's topic. */
export type TypingEvent =
  | {
      type: 'typing';
      op: 'start' | 'stop';
      message_type: 'direct';
      sender: TypingPerson;
      recipients: TypingPerson[];
    }
  | {
      type: 'typing';
      op: 'start' | 'stop';
      message_type: 'stream';
      sender: TypingPerson;
      stream_id: number;
      topic: string;
    };

export const typingEvent = (fields: EventFields<TypingEvent>): TypingEvent => ({
  ...fields,
  type: 'typing',
});

export const typingFormatter = defineFormatter({
  reads: ['eventTypes', 'capabilities'],
  owner: () => [],
  format(event: TypingEvent, settings): TypingEvent[] {
    // Only clients that declared stream_typing_notifications understand channel typing.
    if (event.message_type === 'stream' && !settings.capabilities.stream_typing_notifications) {
      return [];
    }
    return accepts(settings, 'typing') ? [event] : [];
  },
});
