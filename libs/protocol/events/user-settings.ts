import type { JsonValue } from '../records';
import { accepts, defineFormatter, type EventFields } from '../formatter';
import { legacySettingsEventType } from '../legacy-settings';

/** One of the user's own settings changed. */
export interface UserSettingsEvent {
  type: 'user_settings';
  op: 'update';
  property: string;
  value: JsonValue;
  /** With `default_language`: the language's name. */
  language_name?: string;
}

/** The forms clients without user_settings_object learn a legacy setting's change in. */
export interface UpdateDisplaySettingsEvent {
  type: 'update_display_settings';
  user: string;
  setting_name: string;
  setting: JsonValue;
  language_name?: string;
}

export interface UpdateGlobalNotificationsEvent {
  type: 'update_global_notifications';
  user: string;
  notification_name: string;
  setting: JsonValue;
}

export const userSettingsEvent = (fields: EventFields<UserSettingsEvent>): UserSettingsEvent => ({
  ...fields,
  type: 'user_settings',
});

export const userSettingsFormatter = defineFormatter({
  reads: ['eventTypes', 'capabilities'],
  owner: (queue, _event: UserSettingsEvent, context) => [context.emailOf(queue.userId)] as const,
  format(
    event,
    settings,
    [email],
  ): (UserSettingsEvent | UpdateDisplaySettingsEvent | UpdateGlobalNotificationsEvent)[] {
    const out: (UserSettingsEvent | UpdateDisplaySettingsEvent | UpdateGlobalNotificationsEvent)[] =
      [];
    if (accepts(settings, 'user_settings')) out.push(event);
    if (settings.capabilities.user_settings_object) return out;
    const legacyType = legacySettingsEventType(event.property);
    if (!legacyType || !accepts(settings, legacyType)) return out;
    const user = email ?? '';
    if (legacyType === 'update_display_settings') {
      const legacy: UpdateDisplaySettingsEvent = {
        type: legacyType,
        user,
        setting_name: event.property,
        setting: event.value,
      };
      if (event.language_name !== undefined) legacy.language_name = event.language_name;
      out.push(legacy);
    } else {
      out.push({ type: legacyType, user, notification_name: event.property, setting: event.value });
    }
    return out;
  },
});
