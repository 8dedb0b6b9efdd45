import { plainFormatter, type EventFields } from '../formatter';

/** `reaction` events. */
export interface ReactionEvent {
  type: 'reaction';
  op: 'add' | 'remove';
  user_id: number;
  user: { user_id: number; email: string; full_name: string };
  message_id: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

export const reactionEvent = (fields: EventFields<ReactionEvent>): ReactionEvent => ({
  ...fields,
  type: 'reaction',
});

export const reactionFormatter = plainFormatter<ReactionEvent>();
