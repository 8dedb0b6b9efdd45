import { settingValue, USER_SETTING_NAMES } from '../../settings/user-settings';
import {
  LEGACY_DISPLAY_SETTINGS,
  LEGACY_NOTIFICATION_SETTINGS,
} from '../../../protocol/legacy-settings';
import { wants, type StateProvider } from './types';

export const AVAILABLE_SOUNDS = ['chime-saved', 'ding', 'zulip'];
export const EMOJISET_CHOICES = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
];

/**
 * Clients without user_settings_object also get the legacy settings at the top level, with the
 * choices Zulip listed beside them (`dense_mode` left with FL 364).
 */
const DISPLAY_LEGACY = [...LEGACY_DISPLAY_SETTINGS, 'emojiset_choices'];
const NOTIFICATION_LEGACY = [...LEGACY_NOTIFICATION_SETTINGS, 'available_notification_sounds'];

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
