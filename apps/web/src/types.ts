/** The parts of Zulip's API objects the web client reads. */
export interface Reaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  user_id: number;
}

export interface Message {
  id: number;
  sender_id: number;
  sender_full_name: string;
  sender_email?: string;
  avatar_url?: string | null;
  content: string;
  timestamp: number;
  type: 'stream' | 'private';
  stream_id?: number;
  subject: string;
  display_recipient: string | { id: number; full_name: string; email: string }[];
  reactions: Reaction[];
  flags?: string[];
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
  /** Search matches, highlighted by the server. */
  match_content?: string;
  match_subject?: string;
}

export interface Subscription {
  stream_id: number;
  name: string;
  color: string;
  description: string;
  is_muted?: boolean;
  desktop_notifications?: boolean | null;
  audible_notifications?: boolean | null;
  [key: string]: unknown;
}

export interface User {
  user_id: number;
  full_name: string;
  email: string;
  is_active?: boolean;
  is_bot?: boolean;
  avatar_url?: string | null;
  role?: number;
  timezone?: string;
  [key: string]: unknown;
}

/** One term of a narrow in Zulip's `GET /messages` form. */
export interface NarrowTerm {
  operator: string;
  operand: string | number | number[];
  negated?: boolean;
}

/**
 * What the message list shows: a channel (or one of its topics), a direct conversation, every
 * message (the combined feed), or any other narrow in Zulip's terms (search, starred, a sender).
 */
export type Narrow =
  | { kind: 'stream'; streamId: number; topic?: string }
  | { kind: 'dm'; userIds: number[] }
  | { kind: 'feed' }
  | { kind: 'search'; terms: NarrowTerm[] };

export interface ServerEvent {
  id: number;
  type: string;
  op?: string;
  [key: string]: unknown;
}
