import type { UserStatus } from '../../../generated/prisma/client';

/** A user's status as the API shows it: only the fields that are set. */
export interface ApiUserStatus {
  away?: boolean;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

type StatusFields = Pick<UserStatus, 'statusText' | 'emojiName' | 'emojiCode' | 'reactionType'>;

/**
 * Zulip's format_user_status: `away` is the deprecated mirror of `presence_enabled` (present only
 * when the user is invisible), then the text and emoji that are set.
 */
export function formatUserStatus(status: StatusFields, presenceEnabled: boolean): ApiUserStatus {
  const result: ApiUserStatus = {};
  if (!presenceEnabled) result.away = true;
  if (status.statusText) result.status_text = status.statusText;
  if (status.emojiName) {
    result.emoji_name = status.emojiName;
    result.emoji_code = status.emojiCode;
    result.reaction_type = status.reactionType;
  }
  return result;
}
