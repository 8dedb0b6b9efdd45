/**
 * How this server's tables map onto the tables of Zulip's export format (`realm.json`,
 * `messages-*.json`: zerver/lib/export.py). Columns carry Zulip's own field names, so a column
 * is exported under its name, a foreign key without its `_id` (Django's field name), except
 * where `rename` says otherwise. Columns are read from the database's catalogue, so a column
 * added later travels without a change here.
 */
export interface TableSpec {
  /** Zulip's table name: the key in realm.json. */
  zulip: string;
  /** Our table. */
  table: string;
  /** Foreign-key columns and the Zulip table whose ids they hold (remapped on import). */
  refs: Record<string, string>;
  /** Our column -> Zulip's field name, where it is not the column (foreign keys: minus `_id`). */
  rename?: Record<string, string>;
  /** Older names Zulip's exports used for a field (read on import only). */
  aliases?: Record<string, string[]>;
  /** Columns that never travel: secrets, derived values, ids unique to one server. */
  omit?: string[];
  /** Columns set on import by the importer itself (the column list still names them). */
  computed?: string[];
  /** The rows of one organization, as a condition on alias `t` with `$1` its id. */
  where: string;
  /** False for link tables keyed by their two references. */
  hasId: boolean;
}

const R = 'zerver_realm';
const U = 'zerver_userprofile';
const G = 'zerver_usergroup';
const S = 'zerver_stream';
const REC = 'zerver_recipient';

const realmGroupSettings = [
  'can_access_all_users_group_id',
  'can_add_custom_emoji_group_id',
  'can_add_subscribers_group_id',
  'can_create_bots_group_id',
  'can_create_groups_id',
  'can_create_private_channel_group_id',
  'can_create_public_channel_group_id',
  'can_create_web_public_channel_group_id',
  'can_create_write_only_bots_group_id',
  'can_delete_any_message_group_id',
  'can_delete_own_message_group_id',
  'can_invite_users_group_id',
  'can_manage_all_groups_id',
  'can_manage_billing_group_id',
  'can_mention_many_users_group_id',
  'can_move_messages_between_channels_group_id',
  'can_move_messages_between_topics_group_id',
  'can_resolve_topics_group_id',
  'can_set_delete_message_policy_group_id',
  'can_set_topics_policy_group_id',
  'can_summarize_topics_group_id',
  'create_multiuse_invite_group_id',
  'direct_message_initiator_group_id',
  'direct_message_permission_group_id',
];
/** Realm columns filled once the rows they name exist (groups and channels come after the realm). */
export const REALM_LATE_REFS: Record<string, string> = {
  ...Object.fromEntries(realmGroupSettings.map((c) => [c, G])),
  new_stream_announcements_stream_id: S,
  signup_announcements_stream_id: S,
  zulip_update_announcements_stream_id: S,
  moderation_request_channel_id: S,
};
export const USER_LATE_REFS: Record<string, string> = {
  default_sending_stream_id: S,
  default_events_register_stream_id: S,
};

const groupSettings = (names: string[]) => Object.fromEntries(names.map((c) => [c, G]));

export const REALM: TableSpec = {
  zulip: R,
  table: 'realms',
  refs: REALM_LATE_REFS,
  omit: ['uuid'],
  computed: ['string_id'],
  where: 't.id = $1',
  hasId: true,
};

export const USERS: TableSpec = {
  zulip: U,
  table: 'users',
  refs: { realm_id: R, bot_owner_id: U, recipient_id: REC, ...USER_LATE_REFS },
  rename: { password_hash: 'password' },
  omit: ['uuid', 'api_key_hash', 'api_key_ciphertext'],
  computed: ['api_key_hash', 'api_key_ciphertext'],
  where: 't.realm_id = $1',
  hasId: true,
};

/** Recipients of the organization's users, channels and direct-message groups. */
export const RECIPIENTS: TableSpec = {
  zulip: REC,
  table: 'recipients',
  refs: {},
  computed: ['type_id'],
  where: `(t.type = 1 AND t.type_id IN (SELECT id FROM users WHERE realm_id = $1))
       OR (t.type = 2 AND t.type_id IN (SELECT id FROM streams WHERE realm_id = $1))
       OR (t.type = 3 AND t.type_id IN (SELECT id FROM direct_message_groups WHERE realm_id = $1))`,
  hasId: true,
};

export const USER_GROUPS: TableSpec = {
  zulip: G,
  table: 'user_groups',
  refs: {
    realm_id: R,
    creator_id: U,
    ...groupSettings([
      'can_add_members_group_id',
      'can_join_group_id',
      'can_leave_group_id',
      'can_manage_group_id',
      'can_mention_group_id',
      'can_remove_members_group_id',
    ]),
  },
  where: 't.realm_id = $1',
  hasId: true,
};

export const STREAMS: TableSpec = {
  zulip: S,
  table: 'streams',
  refs: {
    realm_id: R,
    creator_id: U,
    recipient_id: REC,
    ...groupSettings([
      'can_add_subscribers_group_id',
      'can_administer_channel_group_id',
      'can_remove_subscribers_group_id',
      'can_send_message_group_id',
      'can_subscribe_group_id',
    ]),
  },
  aliases: { is_archived: ['deactivated'] },
  computed: ['first_message_id'],
  where: 't.realm_id = $1',
  hasId: true,
};

export const DM_GROUPS: TableSpec = {
  zulip: 'zerver_directmessagegroup',
  table: 'direct_message_groups',
  refs: { realm_id: R, recipient_id: REC },
  computed: ['huddle_hash'],
  where: 't.realm_id = $1',
  hasId: true,
};

/** Tables loaded after users, groups and channels, in this order, each with plain references. */
export const SIMPLE_TABLES: TableSpec[] = [
  {
    zulip: 'zerver_usergroupmembership',
    table: 'user_group_memberships',
    refs: { user_group_id: G, user_id: U },
    rename: { user_id: 'user_profile' },
    where: 't.user_group_id IN (SELECT id FROM user_groups WHERE realm_id = $1)',
    hasId: false,
  },
  {
    zulip: 'zerver_groupgroupmembership',
    table: 'group_group_memberships',
    refs: { supergroup_id: G, subgroup_id: G },
    where: 't.supergroup_id IN (SELECT id FROM user_groups WHERE realm_id = $1)',
    hasId: false,
  },
  {
    zulip: 'zerver_subscription',
    table: 'subscriptions',
    refs: { user_id: U, recipient_id: REC },
    rename: { user_id: 'user_profile' },
    where: 't.user_id IN (SELECT id FROM users WHERE realm_id = $1)',
    hasId: true,
  },
  {
    zulip: 'zerver_realmuserdefault',
    table: 'realm_user_defaults',
    refs: { realm_id: R },
    where: 't.realm_id = $1',
    hasId: true,
  },
  {
    zulip: 'zerver_realmdomain',
    table: 'realm_domains',
    refs: { realm_id: R },
    where: 't.realm_id = $1',
    hasId: true,
  },
  {
    zulip: 'zerver_realmfilter',
    table: 'realm_filters',
    refs: { realm_id: R },
    where: 't.realm_id = $1',
    hasId: true,
  },
  {
    zulip: 'zerver_realmplayground',
    table: 'realm_playgrounds',
    refs: { realm_id: R },
    where: 't.realm_id = $1',
    hasId: true,
  },
  {
    zulip: 'zerver_realmemoji',
    table: 'realm_emoji',
    refs: { realm_id: R, author_id: U },
    where: 't.realm_id = $1',
    hasId: true,
  },
  {
    zulip: 'zerver_defaultstream',
    table: 'default_streams',
    refs: { realm_id: R, stream_id: S },
    where: 't.realm_id = $1',
    hasId: true,
  },
  {
    zulip: 'zerver_customprofilefield',
    table: 'custom_profile_fields',
    refs: { realm_id: R },
    // Zulip's field is `field_type`; exports written here before this travelled as `type`.
    rename: { type: 'field_type' },
    aliases: { type: ['type'] },
    where: 't.realm_id = $1',
    hasId: true,
  },
  {
    zulip: 'zerver_customprofilefieldvalue',
    table: 'custom_profile_field_values',
    refs: { user_id: U, field_id: 'zerver_customprofilefield' },
    rename: { user_id: 'user_profile' },
    where: 't.user_id IN (SELECT id FROM users WHERE realm_id = $1)',
    hasId: true,
  },
  {
    zulip: 'zerver_usertopic',
    table: 'user_topics',
    refs: { user_id: U, stream_id: S, recipient_id: REC },
    rename: { user_id: 'user_profile' },
    where: 't.user_id IN (SELECT id FROM users WHERE realm_id = $1)',
    hasId: true,
  },
  {
    zulip: 'zerver_muteduser',
    table: 'muted_users',
    refs: { user_profile_id: U, muted_user_id: U },
    where: 't.user_profile_id IN (SELECT id FROM users WHERE realm_id = $1)',
    hasId: true,
  },
  {
    zulip: 'zerver_alertword',
    table: 'alert_words',
    refs: { user_id: U },
    rename: { user_id: 'user_profile' },
    where: 't.user_id IN (SELECT id FROM users WHERE realm_id = $1)',
    hasId: true,
  },
  {
    zulip: 'zerver_userstatus',
    table: 'user_statuses',
    refs: { user_id: U },
    rename: { user_id: 'user_profile' },
    where: 't.user_id IN (SELECT id FROM users WHERE realm_id = $1)',
    hasId: true,
  },
  {
    zulip: 'zerver_attachment',
    table: 'attachments',
    refs: { realm_id: R, owner_id: U },
    computed: ['path_id'],
    where: 't.realm_id = $1',
    hasId: true,
  },
];

export const MESSAGES: TableSpec = {
  zulip: 'zerver_message',
  table: 'messages',
  refs: { realm_id: R, sender_id: U, recipient_id: REC },
  aliases: { date_sent: ['pub_date'] },
  // The sending client travels as Zulip's `sending_client`, an id into zerver_client.
  omit: ['search_tsv', 'sending_client_name'],
  computed: ['sending_client_name'],
  where: 't.realm_id = $1',
  hasId: true,
};

export const USER_MESSAGES: TableSpec = {
  zulip: 'zerver_usermessage',
  table: 'user_messages',
  refs: { user_id: U, message_id: 'zerver_message' },
  rename: { user_id: 'user_profile', flags: 'flags_mask' },
  // The row's own id is a bigint nothing points at: the database numbers the new rows.
  omit: ['id'],
  where: 't.message_id = ANY($1)',
  hasId: false,
};

/** Loaded after the messages, which they point at. */
export const MESSAGE_CHILDREN: TableSpec[] = [
  {
    zulip: 'zerver_reaction',
    table: 'reactions',
    refs: { user_id: U, message_id: 'zerver_message' },
    rename: { user_id: 'user_profile' },
    where: 't.message_id IN (SELECT id FROM messages WHERE realm_id = $1)',
    hasId: true,
  },
  {
    zulip: 'zerver_submessage',
    table: 'submessages',
    refs: { sender_id: U, message_id: 'zerver_message' },
    where: 't.message_id IN (SELECT id FROM messages WHERE realm_id = $1)',
    hasId: true,
  },
];

/** The field name a column travels under. */
export function fieldName(spec: TableSpec, column: string): string {
  const renamed = spec.rename?.[column];
  if (renamed) return renamed;
  return column in spec.refs && column.endsWith('_id') ? column.slice(0, -3) : column;
}

export const MESSAGES_PER_FILE = 1000;
export const messageFileName = (n: number) => `messages-${String(n).padStart(6, '0')}.json`;
