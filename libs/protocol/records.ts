/**
 * The API's records (users, channels, subscriptions, bots, groups, ...) as the routes return them
 * and as `POST /register` and the events carry them. The domain's formatters are typed with
 * these, so an event payload and the route's answer cannot disagree. Types, and one list of
 * names: the web client's bundle imports them too.
 */

/** A JSON value, for the settings whose names and types come from the server's columns. */
export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A group setting: a named group's id, or an anonymous group (spec 2.1). */
export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

export interface ProfileDataEntry {
  value: string;
  rendered_value?: string;
}
export type ProfileData = Record<string, ProfileDataEntry>;

/** A user as `GET /users`, `GET /users/{id}`, `realm_users` and `realm_user` add events show it. */
export interface ApiUser {
  email: string;
  user_id: number;
  avatar_version: number;
  is_admin: boolean;
  is_owner: boolean;
  is_guest: boolean;
  role: number;
  is_bot: boolean;
  full_name: string;
  timezone: string;
  is_active: boolean;
  date_joined: string;
  delivery_email: string | null;
  avatar_url?: string | null;
  bot_type?: number | null;
  bot_owner_id?: number | null;
  /** Only for the server's own bots (Zulip's cross-realm bots). */
  is_system_bot?: boolean;
  profile_data?: ProfileData;
}

/** The name Zulip gives a user the viewer cannot access. */
export const INACCESSIBLE_USER_NAME = 'Unknown user';

/**
 * What a guest sees of a user they cannot access (in `GET /users`, `realm_users` and `realm_user`
 * add events): Zulip's fixed "Unknown user" record, a member (role 400) whose only variable
 * content is the ID, with an address at the organization's made-up domain (`realm_bot_domain`).
 */
export function inaccessibleUser(userId: number, emailDomain: string): ApiUser {
  return {
    email: `user${userId}@${emailDomain}`,
    user_id: userId,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    role: 400,
    is_bot: false,
    full_name: INACCESSIBLE_USER_NAME,
    timezone: '',
    is_active: true,
    date_joined: '1970-01-01T00:00:00+00:00',
    delivery_email: null,
    avatar_url: '/static/images/unknown-user-avatar.png',
    profile_data: {},
  };
}

/** A channel in Zulip's API shape (spec 2.2). */
export interface ApiChannel {
  stream_id: number;
  name: string;
  is_archived: boolean;
  description: string;
  rendered_description: string;
  date_created: number;
  creator_id: number | null;
  invite_only: boolean;
  is_web_public: boolean;
  stream_post_policy: number;
  is_announcement_only: boolean;
  message_retention_days: number | null;
  history_public_to_subscribers: boolean;
  first_message_id: number | null;
  is_recently_active: boolean;
  can_add_subscribers_group: GroupSettingValue;
  can_remove_subscribers_group: GroupSettingValue;
  can_administer_channel_group: GroupSettingValue;
  can_send_message_group: GroupSettingValue;
  can_subscribe_group: GroupSettingValue;
  stream_weekly_traffic: number | null;
  is_default?: boolean;
}

/** A channel the user never subscribed to, with its subscribers when they may see them. */
export type NeverSubscribedChannel = ApiChannel & { subscribers?: number[] };

/** A subscription as `GET /users/me/subscriptions` and `subscription` add events carry it. */
export interface ApiSubscription extends Omit<ApiChannel, 'is_default'> {
  color: string;
  is_muted: boolean;
  in_home_view: boolean;
  pin_to_top: boolean;
  desktop_notifications: boolean | null;
  audible_notifications: boolean | null;
  push_notifications: boolean | null;
  email_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
  subscribers?: number[];
}

/** The properties of a subscription `subscription` update events change. */
export type SubscriptionProperty =
  | 'color'
  | 'is_muted'
  | 'in_home_view'
  | 'pin_to_top'
  | 'desktop_notifications'
  | 'audible_notifications'
  | 'push_notifications'
  | 'email_notifications'
  | 'wildcard_mentions_notify';

export interface ApiBotService {
  base_url: string;
  interface: number;
  token: string;
}

/** A bot as `GET /bots` describes it to its owner or an administrator. */
export interface ApiBot {
  user_id: number;
  username: string;
  email: string;
  full_name: string;
  bot_type: number | null;
  is_active: boolean;
  api_key: string;
  avatar_url: string;
  default_sending_stream: string | null;
  default_events_register_stream: string | null;
  default_all_public_streams: boolean;
  owner: string | null;
  owner_id: number | null;
  services: ApiBotService[] | { config_data: Record<string, string>; service_name: string }[];
}

/** A bot as `realm_bots` and `realm_bot` add events carry it: `GET /bots`'s form less two fields. */
export type ApiBotRecord = Omit<ApiBot, 'username' | 'owner'>;

export const USER_GROUP_SETTINGS = [
  'can_add_members_group',
  'can_join_group',
  'can_leave_group',
  'can_manage_group',
  'can_mention_group',
  'can_remove_members_group',
] as const;
export type UserGroupSetting = (typeof USER_GROUP_SETTINGS)[number];

/** A named user group in Zulip's `user_groups` shape. */
export type ApiUserGroup = {
  id: number;
  name: string;
  description: string;
  members: number[];
  direct_subgroup_ids: number[];
  is_system_group: boolean;
  creator_id: number | null;
  date_created: number | null;
  deactivated: boolean;
} & Record<UserGroupSetting, GroupSettingValue>;

export interface ApiRealmEmoji {
  id: string;
  name: string;
  source_url: string;
  still_url?: string | null;
  deactivated: boolean;
  author_id: number | null;
}

export interface ApiPlayground {
  id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

export interface ApiLinkifier {
  pattern: string;
  url_template: string;
  id: number;
}

export interface ApiCustomProfileField {
  id: number;
  type: number;
  order: number;
  name: string;
  hint: string;
  field_data: string;
  display_in_profile_summary?: boolean;
  required: boolean;
  editable_by_user: boolean;
}

export interface ApiRealmDomain {
  domain: string;
  allow_subdomains: boolean;
}

export interface ApiDraft {
  id: number;
  type: '' | 'stream' | 'private';
  to: number[];
  topic: string;
  content: string;
  timestamp: number;
}

export interface ApiScheduledMessage {
  scheduled_message_id: number;
  type: 'stream' | 'private';
  to: number | number[];
  topic?: string;
  content: string;
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
}

export interface ApiUserStatus {
  away?: boolean;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

export interface ApiUserTopic {
  stream_id: number;
  topic_name: string;
  last_updated: number;
  visibility_policy: number;
}

export interface ModernPresence {
  active_timestamp: number;
  idle_timestamp: number;
}

export interface LegacyClientPresence {
  client: string;
  status: 'active' | 'idle';
  timestamp: number;
  pushable: boolean;
}

export interface LegacyPresence {
  website: LegacyClientPresence;
  aggregated: Omit<LegacyClientPresence, 'pushable'>;
}

/** Where an unread message is, as mark-as-unread events describe it (`message_details`). */
export type UnreadMessageDetails =
  | {
      type: 'stream';
      stream_id: number;
      topic: string;
      mentioned?: boolean;
      unmuted_stream_msg?: boolean;
    }
  | { type: 'private'; user_ids: number[]; mentioned?: boolean };

/** One version of a message in `GET /messages/{id}/history` (oldest first). */
export interface ApiMessageSnapshot {
  topic: string;
  content: string;
  rendered_content: string;
  timestamp: number;
  user_id: number | null;
  stream: number;
  prev_topic?: string;
  prev_stream?: number;
  prev_content?: string;
  prev_rendered_content?: string;
  content_html_diff?: string;
}
