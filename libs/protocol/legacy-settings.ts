/**
 * The settings Zulip told clients about before feature level 89 (`UserProfile.
 * display_settings_legacy` plus `timezone`, and `notification_settings_legacy`). Clients without
 * the user_settings_object capability get them at the top level of `POST /register`'s state and,
 * when one changes, an `update_display_settings` or `update_global_notifications` event. Nothing
 * is added here any more: newer settings reach such clients only through `user_settings`.
 */
export const LEGACY_DISPLAY_SETTINGS: readonly string[] = [
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
];

export const LEGACY_NOTIFICATION_SETTINGS: readonly string[] = [
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
];

const DISPLAY = new Set(LEGACY_DISPLAY_SETTINGS);
const NOTIFICATION = new Set(LEGACY_NOTIFICATION_SETTINGS);

/** The legacy event type a change of `setting` also produces, if any. */
export function legacySettingsEventType(
  setting: string,
): 'update_display_settings' | 'update_global_notifications' | null {
  if (DISPLAY.has(setting)) return 'update_display_settings';
  if (NOTIFICATION.has(setting)) return 'update_global_notifications';
  return null;
}
