import { realmUserDefaults } from '../../realm-user-defaults/user-defaults';
import type { StateProvider } from './types';
import { AVAILABLE_SOUNDS, EMOJISET_CHOICES } from './user-settings';

export const realmUserSettingsDefaultsState: StateProvider = {
  eventTypes: ['realm_user_settings_defaults'],
  async fetch({ ctx, realm }) {
    return {
      realm_user_settings_defaults: {
        ...(await realmUserDefaults(ctx.db, realm.id)),
        available_notification_sounds: AVAILABLE_SOUNDS,
        emojiset_choices: EMOJISET_CHOICES,
      },
    };
  },
};
