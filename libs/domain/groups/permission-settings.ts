/**
 * `server_supported_permission_settings` of `POST /register` (Zulip's GroupPermissionSetting
 * configurations): for each group setting of organizations, channels and user groups, which
 * groups it may be set to and its default. Zulip calls this part of its API unstable; clients
 * read it to build their permission pickers.
 */
interface PermissionSetting {
  require_system_group: boolean;
  allow_internet_group: boolean;
  allow_nobody_group: boolean;
  allow_everyone_group: boolean;
  default_group_name: string;
  default_for_system_groups: string | null;
  allowed_system_groups: string[];
}

const setting = (
  defaultGroup: string,
  options: Partial<PermissionSetting> = {},
): PermissionSetting => ({
  require_system_group: false,
  allow_internet_group: false,
  allow_nobody_group: true,
  allow_everyone_group: false,
  default_group_name: defaultGroup,
  default_for_system_groups: null,
  allowed_system_groups: [],
  ...options,
});

const everyoneAllowed = (defaultGroup: string) =>
  setting(defaultGroup, { allow_everyone_group: true });

/** Defaults are those `createRealm` gives a new organization. */
const REALM: Record<string, PermissionSetting> = {
  can_access_all_users_group: setting('role:everyone', {
    require_system_group: true,
    allow_nobody_group: false,
    allow_everyone_group: true,
    allowed_system_groups: ['role:everyone', 'role:members'],
  }),
  can_add_custom_emoji_group: setting('role:members'),
  can_add_subscribers_group: setting('role:members'),
  can_create_bots_group: setting('role:members'),
  can_create_groups: setting('role:members'),
  can_create_private_channel_group: setting('role:members'),
  can_create_public_channel_group: setting('role:members'),
  can_create_web_public_channel_group: setting('role:owners', {
    require_system_group: true,
    allowed_system_groups: ['role:moderators', 'role:administrators', 'role:owners', 'role:nobody'],
  }),
  can_create_write_only_bots_group: setting('role:members'),
  can_delete_any_message_group: setting('role:administrators'),
  can_delete_own_message_group: everyoneAllowed('role:everyone'),
  can_invite_users_group: setting('role:members'),
  can_manage_all_groups: setting('role:owners'),
  can_manage_billing_group: setting('role:administrators'),
  can_mention_many_users_group: everyoneAllowed('role:administrators'),
  can_move_messages_between_channels_group: setting('role:members'),
  can_move_messages_between_topics_group: everyoneAllowed('role:everyone'),
  can_resolve_topics_group: everyoneAllowed('role:everyone'),
  can_set_delete_message_policy_group: setting('role:moderators'),
  can_set_topics_policy_group: setting('role:moderators'),
  can_summarize_topics_group: everyoneAllowed('role:everyone'),
  create_multiuse_invite_group: setting('role:administrators'),
  direct_message_initiator_group: everyoneAllowed('role:everyone'),
  direct_message_permission_group: everyoneAllowed('role:everyone'),
};

const STREAM: Record<string, PermissionSetting> = {
  can_add_subscribers_group: setting('role:nobody', { allow_everyone_group: true }),
  can_administer_channel_group: setting('role:nobody'),
  can_remove_subscribers_group: setting('role:administrators', { allow_everyone_group: true }),
  can_send_message_group: everyoneAllowed('role:everyone'),
  can_subscribe_group: setting('role:nobody'),
};

const forGroups = (defaultGroup: string, forSystemGroups: string) =>
  setting(defaultGroup, { default_for_system_groups: forSystemGroups });

const GROUP: Record<string, PermissionSetting> = {
  can_add_members_group: forGroups('group_creator', 'role:nobody'),
  can_join_group: forGroups('role:nobody', 'role:nobody'),
  can_leave_group: { ...forGroups('role:everyone', 'role:nobody'), allow_everyone_group: true },
  can_manage_group: forGroups('group_creator', 'role:nobody'),
  can_mention_group: { ...forGroups('role:everyone', 'role:everyone'), allow_everyone_group: true },
  can_remove_members_group: forGroups('role:nobody', 'role:nobody'),
};

export const SERVER_PERMISSION_SETTINGS = { realm: REALM, stream: STREAM, group: GROUP } as const;
