export type {
  ApiMessage,
  ApiReaction,
  ApiSubmessage,
  DisplayRecipientUser,
  EditHistoryEntry,
} from '../../protocol/message-payload';

/** `type` of POST /messages: legacy and current spellings. */
export const CHANNEL_TYPES = ['stream', 'channel'] as const;
export const DIRECT_TYPES = ['private', 'direct'] as const;
