/**
 * Zulip's Message.EMPTY_TOPIC_FALLBACK_NAME (and default `realm_empty_topic_display_name`): what
 * clients without the empty_topic_name capability see instead of the empty topic.
 */
export const EMPTY_TOPIC_FALLBACK_NAME = 'general chat';
