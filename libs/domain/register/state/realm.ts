import type { Realm } from '../../../../generated/prisma/client';
import type { Config } from '../../../core/config';
import { realmIconUrl, realmUrl } from '../../realms/realm-url';
import { fakeEmailDomain } from '../../users/user-access';
import { serializeGroupSettings } from '../../groups/group-setting-value';
import { EMOJI_DATA_PATH } from '../../server/emoji-data';
import { SERVER_PERMISSION_SETTINGS } from '../../groups/permission-settings';
import { OFFLINE_THRESHOLD_SECONDS } from '../../presence/format-presence';
import {
  MAX_MESSAGE_LENGTH,
  MAX_STREAM_DESCRIPTION_LENGTH,
  MAX_STREAM_NAME_LENGTH,
  MAX_TOPIC_LENGTH,
} from '../../length-limits';
import type { StateProvider } from './types';

/** Zulip's Realm.PLAN_TYPE_LIMITED (Zulip Cloud Free). */
const PLAN_TYPE_LIMITED = 2;

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
  'pushNotificationsEnabled',
  'pushNotificationsEnabledEndTime',
  'dateCreated',
  'uuid',
]);

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** `canCreateGroupsId` -> `can_create_groups`; `canAddCustomEmojiGroupId` -> `can_add_custom_emoji_group`. */
const settingName = (column: string) => snake(column.endsWith('Id') ? column.slice(0, -2) : column);

/** Every realm setting column as `realm_<name>`, the way Zulip's `realm` state names them. */
export function realmSettings(
  realm: Realm,
  config: Pick<Config, 'externalHost' | 'externalScheme' | 'fakeEmailDomain' | 'pushBouncer'>,
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
    // Zulip sends -1 for "keep forever" since feature level 22; strict clients reject null.
    if (column === 'messageRetentionDays') {
      out.realm_message_retention_days = value ?? -1;
      continue;
    }
    out[`realm_${name}`] = value;
  }
  const url = realmUrl(realm.stringId, config);
  out.realm_date_created = Math.floor(realm.dateCreated.getTime() / 1000);
  // Mobile push works when the server is registered with a push bouncer and the bouncer's last
  // answer for the organization (can_push) allowed it.
  out.realm_push_notifications_enabled =
    config.pushBouncer !== null && realm.pushNotificationsEnabled;
  out.realm_push_notifications_enabled_end_timestamp = realm.pushNotificationsEnabledEndTime
    ? Math.floor(realm.pushNotificationsEnabledEndTime.getTime() / 1000)
    : null;
  out.realm_upload_quota_mib = realm.uploadQuotaGb === null ? null : realm.uploadQuotaGb * 1024;
  out.realm_uri = url;
  out.realm_url = url;
  out.realm_icon_url = realmIconUrl(realm);
  out.realm_logo_url = '/static/images/logo/zulip-org-logo.svg';
  out.realm_night_logo_url = out.realm_logo_url;
  // Zulip's get_bot_domain: the made-up domain of placeholder addresses, never with a port.
  out.realm_bot_domain = fakeEmailDomain(realm, config);
  out.realm_is_zephyr_mirror_realm = false;
  return out;
}

/** Zulip's deprecated policy enums, each a superset of a group setting's members (FL 264, 280, 352). */
const COMMON_POLICY: Record<string, number> = {
  'role:members': 1,
  'role:administrators': 2,
  'role:fullmembers': 3,
  'role:moderators': 4,
};
const WEB_PUBLIC_POLICY: Record<string, number> = {
  'role:administrators': 2,
  'role:moderators': 4,
  'role:nobody': 6,
  'role:owners': 7,
};
const WILDCARD_MENTION_POLICY: Record<string, number> = {
  'role:everyone': 1,
  'role:members': 2,
  'role:fullmembers': 3,
  'role:administrators': 5,
  'role:nobody': 6,
  'role:moderators': 7,
};
const LEGACY_POLICIES = [
  ['realm_create_public_stream_policy', 'canCreatePublicChannelGroupId', COMMON_POLICY, 1],
  ['realm_create_private_stream_policy', 'canCreatePrivateChannelGroupId', COMMON_POLICY, 1],
  [
    'realm_create_web_public_stream_policy',
    'canCreateWebPublicChannelGroupId',
    WEB_PUBLIC_POLICY,
    4,
  ],
  ['realm_wildcard_mention_policy', 'canMentionManyUsersGroupId', WILDCARD_MENTION_POLICY, 1],
] as const;

/** Zulip's upload limits for avatars, organization icons and logos (MiB). */
export const MAX_IMAGE_FILE_SIZE_MIB = 5;
const DEFAULT_JITSI_SERVER_URL = 'https://meet.jit.si';
/** How often clients report presence, and when a silent user counts as offline (Zulip's values). */
const PRESENCE_PING_INTERVAL_SECONDS = 60;
const GIPHY_RATING_OPTIONS = {
  disabled: { name: 'GIPHY integration disabled', id: 0 },
  y: { name: 'Allow GIFs rated Y (Very young audience)', id: 1 },
  g: { name: 'Allow GIFs rated G (General audience)', id: 2 },
  pg: { name: 'Allow GIFs rated PG (Parental guidance)', id: 3 },
  pg13: { name: 'Allow GIFs rated PG-13 (Parental guidance - under 13)', id: 4 },
  r: { name: 'Allow GIFs rated R (Restricted)', id: 5 },
};
/** Zulip's DEFAULT_EXTERNAL_ACCOUNTS, the account kinds custom profile fields offer. */
const DEFAULT_EXTERNAL_ACCOUNTS = {
  github: {
    text: 'GitHub',
    url_pattern: 'https://github.com/%(username)s',
    name: 'GitHub',
    hint: 'Enter your GitHub username',
  },
  twitter: {
    text: 'X (Twitter)',
    url_pattern: 'https://x.com/%(username)s',
    name: 'X',
    hint: 'Enter your X (Twitter) username',
  },
};
/** When this process started: Zulip's `server_generation`, which changes on each restart. */
const SERVER_GENERATION = Math.floor(Date.now() / 1000);

/**
 * `realm`: the organization's settings and the server's own, as Zulip bundles them: limits,
 * presence and typing timings, upload sizes, and the deprecated policy values older clients read.
 */
export const realmState: StateProvider = {
  eventTypes: ['realm'],
  async fetch({ ctx, realm }) {
    const { config } = ctx;
    const settings = realmSettings(realm, config);
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
    const groupNames = new Map(
      (
        await ctx.db.userGroup.findMany({
          where: { id: { in: LEGACY_POLICIES.flatMap(([, column]) => realm[column] ?? []) } },
          select: { id: true, name: true },
        })
      ).map((g) => [g.id, g.name ?? '']),
    );
    for (const [key, column, policies, broadest] of LEGACY_POLICIES) {
      const name = groupNames.get(realm[column] ?? -1) ?? '';
      settings[key] = (policies as Record<string, number>)[name] ?? broadest;
    }
    const passwordAuth = config.passwordAuthEnabled;
    return {
      ...settings,
      realm_email_auth_enabled: passwordAuth,
      realm_password_auth_enabled: passwordAuth,
      realm_available_video_chat_providers: {
        disabled: { name: 'None', id: 0 },
        jitsi_meet: { name: 'Jitsi Meet', id: 1 },
      },
      max_file_upload_size_mib: config.maxFileUploadSizeMib,
      max_avatar_file_size_mib: MAX_IMAGE_FILE_SIZE_MIB,
      max_icon_file_size_mib: MAX_IMAGE_FILE_SIZE_MIB,
      max_logo_file_size_mib: MAX_IMAGE_FILE_SIZE_MIB,
      max_message_length: MAX_MESSAGE_LENGTH,
      max_topic_length: MAX_TOPIC_LENGTH,
      max_stream_name_length: MAX_STREAM_NAME_LENGTH,
      max_stream_description_length: MAX_STREAM_DESCRIPTION_LENGTH,
      settings_send_digest_emails: false,
      zulip_plan_is_not_limited: realm.planType !== PLAN_TYPE_LIMITED,
      upgrade_text_for_wide_organization_logo:
        'Available on Zulip Cloud Standard. Upgrade to access.',
      realm_default_external_accounts: DEFAULT_EXTERNAL_ACCOUNTS,
      jitsi_server_url: realm.jitsiServerUrl ?? DEFAULT_JITSI_SERVER_URL,
      server_jitsi_server_url: DEFAULT_JITSI_SERVER_URL,
      development_environment: false,
      server_generation: SERVER_GENERATION,
      password_min_length: config.passwordMinLength,
      password_min_guesses: config.passwordMinGuesses,
      giphy_rating_options: GIPHY_RATING_OPTIONS,
      server_inline_image_preview: true,
      server_inline_url_embed_preview: config.urlPreview.enabled,
      server_avatar_changes_disabled: false,
      server_name_changes_disabled: false,
      server_needs_upgrade: false,
      server_web_public_streams_enabled: config.webPublicStreamsEnabled,
      server_emoji_data_url: `${realmUrl(realm.stringId, config)}${EMOJI_DATA_PATH}`,
      server_supported_permission_settings: SERVER_PERMISSION_SETTINGS,
      server_presence_ping_interval_seconds: PRESENCE_PING_INTERVAL_SECONDS,
      server_presence_offline_threshold_seconds: OFFLINE_THRESHOLD_SECONDS,
      server_typing_started_expiry_period_milliseconds: 45_000,
      server_typing_stopped_wait_period_milliseconds: 5_000,
      server_typing_started_wait_period_milliseconds: 10_000,
      event_queue_longpoll_timeout_seconds: Math.ceil(config.heartbeatSeconds) + 45,
    };
  },
};
