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
  content: string;
  timestamp: number;
  type: 'stream' | 'private';
  stream_id?: number;
  subject: string;
  display_recipient: string | { id: number; full_name: string; email: string }[];
  reactions: Reaction[];
  flags?: string[];
  last_edit_timestamp?: number;
}

export interface Subscription {
  stream_id: number;
  name: string;
  color: string;
  description: string;
}

export interface User {
  user_id: number;
  full_name: string;
  email: string;
  is_active?: boolean;
  is_bot?: boolean;
}

export type Narrow =
  { kind: 'stream'; streamId: number; topic?: string } | { kind: 'dm'; userIds: number[] };

export interface ServerEvent {
  id: number;
  type: string;
  op?: string;
  [key: string]: unknown;
}
