import type { ApiMessage } from './message-payload';
import type { QueueNarrowTerm } from './queue';

/** What the narrow matcher reads of a message. */
export type NarrowedMessage = Pick<
  ApiMessage,
  'type' | 'sender_id' | 'sender_email' | 'stream_id' | 'display_recipient' | 'subject'
>;

/** Whether a message (with the queue owner's flags) matches a registered narrow. */
export function matchesQueueNarrow(
  narrow: readonly QueueNarrowTerm[],
  message: NarrowedMessage,
  flags: readonly string[],
): boolean {
  return narrow.every((term) => {
    const hit = matchesTerm(term, message, flags);
    return term.negated ? !hit : hit;
  });
}

function sameText(a: string | number, b: string | number): boolean {
  return String(a).toLowerCase() === String(b).toLowerCase();
}

function matchesTerm(
  term: QueueNarrowTerm,
  message: NarrowedMessage,
  flags: readonly string[],
): boolean {
  const { operator, operand } = term;
  const recipient = message.display_recipient;
  switch (operator) {
    case 'stream':
    case 'channel':
      if (message.type !== 'stream') return false;
      return typeof operand === 'number' || /^\d+$/.test(String(operand))
        ? Number(operand) === message.stream_id
        : typeof recipient === 'string' && sameText(operand, recipient);
    case 'topic':
    case 'subject':
      return message.type === 'stream' && sameText(operand, message.subject);
    case 'sender':
      return typeof operand === 'number'
        ? operand === message.sender_id
        : sameText(operand, message.sender_email);
    case 'is':
      switch (operand) {
        case 'dm':
        case 'private':
          return message.type === 'private';
        case 'starred':
          return flags.includes('starred');
        case 'mentioned':
          return flags.some((f) => f.endsWith('mentioned'));
        case 'alerted':
          return flags.includes('has_alert_word');
        case 'unread':
          return !flags.includes('read');
        default:
          return true;
      }
    case 'dm':
    case 'pm-with': {
      if (message.type !== 'private' || typeof recipient === 'string') return false;
      const wanted = (typeof operand === 'number' ? [operand] : String(operand).split(','))
        .map((x) => String(x).trim().toLowerCase())
        .sort();
      const have = recipient.map((r) =>
        typeof operand === 'number' ? String(r.id) : r.email.toLowerCase(),
      );
      return wanted.every((w) => have.includes(w));
    }
    default:
      // Search terms and the like cannot be evaluated on single events; Zulip lets them pass.
      return true;
  }
}
