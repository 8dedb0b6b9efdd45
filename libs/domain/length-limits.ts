/** Zulip's length limits on what users write (the server settings report them to clients). */
export const MAX_MESSAGE_LENGTH = 10000;
export const MAX_TOPIC_LENGTH = 60;
export const MAX_STREAM_NAME_LENGTH = 60;
export const MAX_STREAM_DESCRIPTION_LENGTH = 1024;
export const MAX_USER_GROUP_NAME_LENGTH = 100;
