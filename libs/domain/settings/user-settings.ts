import Joi from 'joi';
import type { User } from '../../../generated/prisma/client';
import { P, type InferShape } from '../../core/schema';

/** Languages the server has translations for: code -> English name (for `language_name`). */
export const LANGUAGES: Record<string, string> = {
  ar: 'Arabic',
  be: 'Belarusian',
  bg: 'Bulgarian',
  bn: 'Bengali',
  ca: 'Catalan',
  cs: 'Czech',
  cy: 'Welsh',
  da: 'Danish',
  de: 'German',
  el: 'Greek',
  en: 'English',
  en_GB: 'British English',
  eo: 'Esperanto',
  es: 'Spanish',
  fa: 'Persian',
  fi: 'Finnish',
  fr: 'French',
  gl: 'Galician',
  gu: 'Gujarati',
  hi: 'Hindi',
  hu: 'Hungarian',
  id: 'Indonesian',
  it: 'Italian',
  ja: 'Japanese',
  ko: 'Korean',
  lt: 'Lithuanian',
  ml: 'Malayalam',
  mn: 'Mongolian',
  nl: 'Dutch',
  no: 'Norwegian',
  pl: 'Polish',
  pt: 'Portuguese',
  pt_BR: 'Brazilian Portuguese',
  pt_PT: 'Portuguese (Portugal)',
  ro: 'Romanian',
  ru: 'Russian',
  si: 'Sinhala',
  sr: 'Serbian',
  sv: 'Swedish',
  ta: 'Tamil',
  te: 'Telugu',
  tl: 'Tagalog',
  tr: 'Turkish',
  uk: 'Ukrainian',
  uz: 'Uzbek',
  vi: 'Vietnamese',
  'zh-hans': 'Simplified Chinese',
  'zh-hant': 'Traditional Chinese',
};

/** `emojiset` values: the spec's three artwork sets under Zulip's names, plus plain text. */
export const EMOJISETS = ['google', 'google-blob', 'twitter', 'text'] as const;

const zones = new Set(Intl.supportedValuesOf('timeZone'));

/** IANA identifiers, including the aliases (e.g. `UTC`, `US/Pacific`) the runtime resolves. */
export function isTimezone(value: string): boolean {
  if (zones.has(value)) return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return value.includes('/') || value === 'UTC';
  } catch {
    return false;
  }
}

const oneOf = (...values: number[]) =>
  P.int(
    Joi.number()
      .integer()
      .valid(...values),
  );

/**
 * Every personal setting `PATCH /settings` changes, keyed by its API name; each is the camelCase
 * column of the same name on User and produces a `user_settings` event when it changes.
 */
export const USER_SETTINGS = {
  twenty_four_hour_time: P.bool(),
  web_mark_read_on_scroll_policy: oneOf(1, 2, 3),
  web_channel_default_view: oneOf(1, 2),
  starred_message_counts: P.bool(),
  receives_typing_notifications: P.bool(),
  web_suggest_update_timezone: P.bool(),
  fluid_layout_width: P.bool(),
  high_contrast_mode: P.bool(),
  web_font_size_px: P.int(Joi.number().integer().min(1)),
  web_line_height_percent: P.int(Joi.number().integer().min(1)),
  color_scheme: oneOf(1, 2, 3),
  enable_drafts_synchronization: P.bool(),
  translate_emoticons: P.bool(),
  display_emoji_reaction_users: P.bool(),
  default_language: P.oneOf(...Object.keys(LANGUAGES)),
  web_home_view: P.oneOf('recent_topics', 'inbox', 'all_messages'),
  web_escape_navigates_to_home_view: P.bool(),
  left_side_userlist: P.bool(),
  emojiset: P.oneOf(...EMOJISETS),
  demote_inactive_streams: oneOf(1, 2, 3),
  user_list_style: oneOf(1, 2, 3),
  web_animate_image_previews: P.oneOf('always', 'on_hover', 'never'),
  web_stream_unreads_count_display_policy: oneOf(1, 2, 3),
  web_navigate_to_sent_message: P.bool(),
  hide_ai_features: P.bool(),
  timezone: P.string(
    Joi.string()
      .allow('')
      .custom((value: string) => {
        if (value !== '' && !isTimezone(value))
          throw new Error('timezone is not a recognized time zone');
        return value;
      }),
  ),
  enter_sends: P.bool(),
  enable_stream_desktop_notifications: P.bool(),
  enable_stream_email_notifications: P.bool(),
  enable_stream_push_notifications: P.bool(),
  enable_stream_audible_notifications: P.bool(),
  notification_sound: P.string(Joi.string()),
  enable_desktop_notifications: P.bool(),
  enable_sounds: P.bool(),
  email_notifications_batching_period_seconds: P.int(
    Joi.number()
      .integer()
      .min(120)
      .max(7 * 24 * 60 * 60),
  ),
  enable_offline_email_notifications: P.bool(),
  enable_offline_push_notifications: P.bool(),
  enable_online_push_notifications: P.bool(),
  enable_followed_topic_desktop_notifications: P.bool(),
  enable_followed_topic_email_notifications: P.bool(),
  enable_followed_topic_push_notifications: P.bool(),
  enable_followed_topic_audible_notifications: P.bool(),
  enable_followed_topic_wildcard_mentions_notify: P.bool(),
  enable_digest_emails: P.bool(),
  enable_login_emails: P.bool(),
  enable_marketing_emails: P.bool(),
  message_content_in_email_notifications: P.bool(),
  pm_content_in_desktop_notifications: P.bool(),
  wildcard_mentions_notify: P.bool(),
  desktop_icon_count_display: oneOf(1, 2, 3, 4),
  realm_name_in_email_notifications_policy: oneOf(1, 2, 3),
  automatically_follow_topics_policy: oneOf(1, 2, 3, 4),
  automatically_unmute_topics_in_muted_streams_policy: oneOf(1, 2, 3, 4),
  automatically_follow_topics_where_mentioned: P.bool(),
  resolved_topic_notice_auto_read_policy: P.oneOf('always', 'except_followed', 'never'),
  presence_enabled: P.bool(),
  send_stream_typing_notifications: P.bool(),
  send_private_typing_notifications: P.bool(),
  send_read_receipts: P.bool(),
  allow_private_data_export: P.bool(),
  email_address_visibility: oneOf(1, 2, 3, 4, 5),
} as const;

export type UserSettingName = keyof typeof USER_SETTINGS;
export type UserSettingValue = boolean | number | string;
export type UserSettingChanges = InferShape<typeof USER_SETTINGS>;

export const USER_SETTING_NAMES = Object.keys(USER_SETTINGS) as UserSettingName[];

/** `enable_stream_desktop_notifications` -> `enableStreamDesktopNotifications`. */
export function settingColumn(name: UserSettingName): keyof User {
  return name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()) as keyof User;
}

/** A user's value of one setting, as the API shows it. */
export function settingValue(user: User, name: UserSettingName): UserSettingValue {
  return user[settingColumn(name)] as UserSettingValue;
}
