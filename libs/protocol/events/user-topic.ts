import { plainFormatter, type EventFields } from '../formatter';

/** `user_topic` events. */
export interface UserTopicEvent {
  type: 'user_topic';
  stream_id: number;
  topic_name: string;
  last_updated: number;
  visibility_policy: number;
}

export const userTopicEvent = (fields: EventFields<UserTopicEvent>): UserTopicEvent => ({
  ...fields,
  type: 'user_topic',
});

export const userTopicFormatter = plainFormatter<UserTopicEvent>();
