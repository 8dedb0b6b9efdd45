import { settingValue, USER_SETTING_NAMES } from '../../settings/user-settings';
import { wants, type StateProvider } from './types';

export const AVAILABLE_SOUNDS = ['chime-saved', 'ding', 'zulip'];
export const EMOJISET_CHOICES = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
];

/**
 * The settings Zulip also put at the top level of the snapshot before feature level 89, under
 * `update_display_settings` and `update_global_notifications` (`dense_mode` left with FL 364).
 */
const DISPLAY_LEGACY = [
  'color_scheme',
  'default_language',
  'demote_inactive_streams',
  'emojiset',
  'enable_drafts_synchronization',
  'enter_sends',
  'fluid_layout_width',
  'high_contrast_mode',
  'left_side_userlist',
  'starred_message_counts',
  'timezone',
  'translate_emoticons',
  'twenty_four_hour_time',
  'web_home_view',
  'emojiset_choices',
];
const NOTIFICATION_LEGACY = [
  'desktop_icon_count_display',
  'email_notifications_batching_period_seconds',
  'enable_desktop_notifications',
  'enable_digest_emails',
  'enable_login_emails',
  'enable_marketing_emails',
  'enable_offline_email_notifications',
  'enable_offline_push_notifications',
  'enable_online_push_notifications',
  'enable_sounds',
  'enable_stream_audible_notifications',
  'enable_stream_desktop_notifications',
  'enable_stream_email_notifications',
  'enable_stream_push_notifications',
  'message_content_in_email_notifications',
  'notification_sound',
  'pm_content_in_desktop_notifications',
  'presence_enabled',
  'realm_name_in_email_notifications_policy',
  'wildcard_mentions_notify',
  'available_notification_sounds',
];

/**
 * `user_settings`: one object. Clients without the user_settings_object capability that ask for
 * `update_display_settings` or `update_global_notifications` also get those settings at the top
 * level, as Zulip did before feature level 89.
 */
export const userSettingsState: StateProvider = {
  eventTypes: ['user_settings', 'update_display_settings', 'update_global_notifications'],
  async fetch({ user, params, capabilities }) {
    const settings: Record<string, unknown> = {};
    for (const name of USER_SETTING_NAMES) settings[name] = settingValue(user, name);
    settings.available_notification_sounds = AVAILABLE_SOUNDS;
    settings.emojiset_choices = EMOJISET_CHOICES;
    const out: Record<string, unknown> = {};
    if (wants(params, 'user_settings')) out.user_settings = settings;
    if (capabilities.user_settings_object) return out;
    for (const [type, names] of [
      ['update_display_settings', DISPLAY_LEGACY],
      ['update_global_notifications', NOTIFICATION_LEGACY],
    ] as const) {
      if (!wants(params, type)) continue;
      for (const name of names) if (name in settings) out[name] = settings[name];
    }
    return out;
  },
};
