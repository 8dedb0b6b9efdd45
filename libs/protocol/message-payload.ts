/** The message dict as every API answer and `message` event carries it (Zulip's MessagesBase). */
/** A reaction as the message dict and `reaction` events carry it. */
export interface ApiReaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  user_id: number;
}

export interface DisplayRecipientUser {
  id: number;
  email: string;
  full_name: string;
  is_mirror_dummy: boolean;
}

export interface EditHistoryEntry {
  user_id: number | null;
  timestamp: number;
  prev_content?: string;
  prev_rendered_content?: string;
  prev_stream?: number;
  stream?: number;
  prev_topic?: string;
  topic?: string;
}

export interface ApiSubmessage {
  msg_type: string;
  content: string;
  message_id: number;
  sender_id: number;
  id: number;
}

/** Zulip's message dict (spec 2.8; OpenAPI MessagesBase). */
export interface ApiMessage {
  id: number;
  type: 'stream' | 'private';
  stream_id?: number;
  subject: string;
  content: string;
  rendered_content?: string;
  content_type: 'text/html' | 'text/x-markdown';
  timestamp: number;
  client: string;
  avatar_url: string | null;
  display_recipient: string | DisplayRecipientUser[];
  recipient_id: number;
  sender_id: number;
  sender_email: string;
  sender_full_name: string;
  sender_realm_str: string;
  is_me_message: boolean;
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
  edit_history?: EditHistoryEntry[];
  reactions: ApiReaction[];
  submessages: ApiSubmessage[];
  topic_links: { text: string; url: string }[];
  flags?: string[];
  match_content?: string;
  match_subject?: string;
}
