import { plainFormatter, type EventFields } from '../formatter';

/** `update_message` events. */
export interface UpdateMessageEvent {
  type: 'update_message';
  user_id: number | null;
  edit_timestamp: number;
  message_id: number;
  message_ids: number[];
  flags: string[];
  rendering_only: boolean;
  stream_id?: number;
  stream_name?: string;
  new_stream_id?: number;
  propagate_mode?: string;
  orig_subject?: string;
  subject?: string;
  topic_links?: { text: string; url: string }[];
  orig_content?: string;
  orig_rendered_content?: string | null;
  content?: string;
  rendered_content?: string;
  is_me_message?: boolean;
}

export const updateMessageEvent = (
  fields: EventFields<UpdateMessageEvent>,
): UpdateMessageEvent => ({ ...fields, type: 'update_message' });

export const updateMessageFormatter = plainFormatter<UpdateMessageEvent>();
