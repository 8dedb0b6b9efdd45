import type { Realm } from '../../../../generated/prisma/client';
import type { Config } from '../../../config';
import { realmIconUrl, realmUrl } from '../../realms/realm-url';
import { serializeGroupSettings } from '../../groups/group-setting-value';
import type { StateProvider } from './types';

/** Columns that are not realm settings clients see, or that need their own shape. */
const HIDDEN = new Set([
  'id',
  'stringId',
  'deactivated',
  'iconVersion',
  'logoVersion',
  'nightLogoVersion',
  'uploadQuotaGb',
  'maxInvites',
  'pushNotificationsEnabledEndTime',
  'dateCreated',
]);

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** `canCreateGroupsId` -> `can_create_groups`; `canAddCustomEmojiGroupId` -> `can_add_custom_emoji_group`. */
const settingName = (column: string) => snake(column.endsWith('Id') ? column.slice(0, -2) : column);

/** Every realm setting column as `realm_<name>`, the way Zulip's `realm` state names them. */
export function realmSettings(
  realm: Realm,
  config: Pick<Config, 'externalHost' | 'externalScheme'>,
) {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(realm)) {
    if (HIDDEN.has(column) || value === undefined) continue;
    if (value instanceof Date) continue;
    if (column.endsWith('Id') && value === null && column.startsWith('can')) continue;
    const name = settingName(column);
    // Announcement channels: -1 means "none" in Zulip's API.
    if (column.endsWith('StreamId') || column === 'moderationRequestChannelId') {
      out[`realm_${name}_id`] = value ?? -1;
      continue;
    }
    out[`realm_${name}`] = value;
  }
  const url = realmUrl(realm.stringId, config);
  out.realm_date_created = Math.floor(realm.dateCreated.getTime() / 1000);
  out.realm_push_notifications_enabled_end_timestamp = realm.pushNotificationsEnabledEndTime
    ? Math.floor(realm.pushNotificationsEnabledEndTime.getTime() / 1000)
    : null;
  out.realm_upload_quota_mib = realm.uploadQuotaGb === null ? null : realm.uploadQuotaGb * 1024;
  out.realm_uri = url;
  out.realm_url = url;
  out.realm_icon_url = realmIconUrl(realm);
  out.realm_logo_url = '/static/images/logo/zulip-org-logo.svg';
  out.realm_night_logo_url = out.realm_logo_url;
  out.realm_bot_domain = new URL(url).host;
  out.realm_is_zephyr_mirror_realm = false;
  return out;
}

export const realmState: StateProvider = {
  eventTypes: ['realm'],
  async fetch({ ctx, realm }) {
    const settings = realmSettings(realm, ctx.config);
    // Group settings held by anonymous groups go out as {direct_members, direct_subgroups}.
    const groupColumns = Object.entries(realm).filter(
      (entry): entry is [string, number] => entry[0].endsWith('GroupId') && entry[1] !== null,
    );
    const values = await serializeGroupSettings(
      ctx.db,
      groupColumns.map(([, id]) => id),
    );
    for (const [column, id] of groupColumns)
      settings[`realm_${settingName(column)}`] = values.get(id);
    return { ...settings, max_file_upload_size_mib: ctx.config.maxFileUploadSizeMib };
  },
};
