/**
 * The one event reducer: applies the events of `GET /events` to the state `POST /register`
 * returned, so that the state stays what a fresh `POST /register` would return. Zulip's
 * `apply_event` (zerver/lib/events.py) is the model; where Zulip reads the database, this file
 * derives the value from the event and the state alone.
 *
 * Used by the web client (apps/web/src/store.ts) and by the verify_action harness
 * (test/verify-action/), which checks `register + events == fresh register` for every action
 * that emits events: a client and the check share this code, so there are not two reducers.
 * Pure: no server imports, nothing but types from libs/protocol, runs in the browser bundle.
 *
 * API
 * - `applyEvent(state, event, options)`: applies one event to `state` in place (as Zulip's
 *   apply_event does) and returns `state`. Events of types the state has no part for change
 *   nothing. An event the reducer cannot apply faithfully throws `StateReducerError`.
 * - `applyEvents(state, events, options)`: `applyEvent` for each, in order.
 * - `ReducerOptions`: what the registration asked for that shapes the state (the user's id,
 *   `slim_presence`, `include_subscribers`); `reducerOptions(state, params)` derives them.
 * - `RegisterState`: the state as `POST /register` returns it (the parts the reducer keeps).
 * - `ReducibleEvent`: every event a queue delivers (the typed catalogue's client forms).
 * - `userInGroupSetting(state, userId, setting)`: whether a user is in a group-setting value.
 */
import type { ClientEvent } from './event-catalogue';
import type { ApiMessage } from './message-payload';
import { inaccessibleUser, USER_GROUP_SETTINGS } from './records';
import type {
  ApiBotRecord,
  ApiChannel,
  ApiCustomProfileField,
  ApiDraft,
  ApiRealmDomain,
  ApiRealmEmoji,
  ApiScheduledMessage,
  ApiSubscription,
  ApiUser,
  ApiUserGroup,
  ApiUserStatus,
  ApiUserTopic,
  GroupSettingValue,
  JsonValue,
  LegacyPresence,
  ModernPresence,
  NeverSubscribedChannel,
} from './records';

export type ReducibleEvent = ClientEvent & { id?: number };

export interface UnreadStreamEntry {
  stream_id: number;
  topic: string;
  unread_message_ids: number[];
}

export interface UnreadMsgs {
  count: number;
  pms: { other_user_id: number; sender_id: number; unread_message_ids: number[] }[];
  streams: UnreadStreamEntry[];
  huddles: { user_ids_string: string; unread_message_ids: number[] }[];
  mentions: number[];
  old_unreads_missing: boolean;
}

export interface RecentConversation {
  max_message_id: number;
  user_ids: number[];
}

/**
 * `POST /register`'s state, each part present when the registration asked for it. Realm
 * settings (`realm_<name>`) and the legacy top-level user settings are reached through
 * `realmSetting`/`topLevel` below: their names come from the server's columns.
 */
export interface RegisterState {
  user_id?: number;
  email?: string;
  delivery_email?: string;
  full_name?: string;
  avatar_url?: string;
  avatar_url_medium?: string;
  is_admin?: boolean;
  is_owner?: boolean;
  is_moderator?: boolean;
  is_guest?: boolean;
  can_create_public_streams?: boolean;
  can_create_private_streams?: boolean;
  can_create_web_public_streams?: boolean;
  can_create_streams?: boolean;
  can_subscribe_other_users?: boolean;
  can_invite_others_to_realm?: boolean;
  realm_users?: ApiUser[];
  realm_non_active_users?: ApiUser[];
  realm_bot_domain?: string;
  cross_realm_bots?: ApiUser[];
  subscriptions?: ApiSubscription[];
  unsubscribed?: ApiSubscription[];
  never_subscribed?: NeverSubscribedChannel[];
  streams?: ApiChannel[];
  max_message_id?: number;
  unread_msgs?: UnreadMsgs;
  presences?: Record<string, ModernPresence | LegacyPresence>;
  server_timestamp?: number;
  presence_last_update_id?: number;
  user_settings?: Record<string, JsonValue>;
  realm_user_groups?: ApiUserGroup[];
  realm_emoji?: Record<string, ApiRealmEmoji>;
  realm_linkifiers?: { id: number; pattern: string; url_template: string }[];
  realm_playgrounds?: {
    id: number;
    name: string;
    pygments_language: string;
    url_template: string;
  }[];
  realm_user_settings_defaults?: Record<string, JsonValue>;
  realm_domains?: ApiRealmDomain[];
  alert_words?: string[];
  custom_profile_fields?: ApiCustomProfileField[];
  drafts?: ApiDraft[];
  scheduled_messages?: ApiScheduledMessage[];
  user_status?: Record<string, ApiUserStatus>;
  muted_users?: { id: number; timestamp: number }[];
  user_topics?: ApiUserTopic[];
  muted_topics?: [string, string, number][];
  recent_private_conversations?: RecentConversation[];
  starred_messages?: number[];
  realm_bots?: ApiBotRecord[];
  realm_default_streams?: ApiChannel[];
}

export interface ReducerOptions {
  /** The registered user. */
  userId: number;
  /** The user's API email: the legacy presence form keys by it. */
  email?: string;
  /** `slim_presence`: presences keyed by user id in the modern form. */
  slimPresence: boolean;
  /** `include_subscribers`: channels carry their `subscribers`. */
  includeSubscribers: boolean;
  /**
   * `client_gravatar`: a new user's Gravatar URL is left for the client to compute (null).
   * Zulip does so only for users whose email everyone may see; a pure reducer cannot know that.
   */
  clientGravatar?: boolean;
  /**
   * The `user_list_incomplete` capability: users the client may not access are left out of
   * `realm_users`, not listed as "Unknown user".
   */
  userListIncomplete?: boolean;
}

/** The options for a state from its registration's parameters. */
export function reducerOptions(
  state: RegisterState,
  params: {
    userId?: number;
    slim_presence?: boolean;
    include_subscribers?: boolean;
    client_gravatar?: boolean;
    user_list_incomplete?: boolean;
  },
): ReducerOptions {
  const userId = params.userId ?? state.user_id;
  if (userId === undefined) throw new StateReducerError('the user id is not in the state');
  return {
    userId,
    email: state.email,
    slimPresence: params.slim_presence ?? false,
    includeSubscribers: params.include_subscribers ?? false,
    clientGravatar: params.client_gravatar ?? false,
    userListIncomplete: params.user_list_incomplete ?? false,
  };
}

export class StateReducerError extends Error {}

/** Flags a message carries that make it a mention for `unread_msgs.mentions` (Zulip's rule). */
const MENTION_FLAGS = ['mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned'];
const isMention = (flags: readonly string[]) => flags.some((f) => MENTION_FLAGS.includes(f));

/** Role codes (Zulip's UserProfile.ROLE_*). */
const ROLE_OWNER = 100;
const ROLE_ADMINISTRATOR = 200;
const ROLE_MODERATOR = 300;
const ROLE_GUEST = 600;

/** Applies every event, in order; returns `state`. */
export function applyEvents(
  state: RegisterState,
  events: readonly ReducibleEvent[],
  options: ReducerOptions,
): RegisterState {
  for (const event of events) applyEvent(state, event, options);
  return state;
}

/** Applies one event to `state` in place; returns `state`. */
// eslint-disable-next-line max-lines-per-function -- the dispatch table: one case per event type
export function applyEvent(
  state: RegisterState,
  event: ReducibleEvent,
  options: ReducerOptions,
): RegisterState {
  switch (event.type) {
    case 'heartbeat':
    case 'typing':
    case 'attachment':
    case 'invites_changed':
    case 'reaction':
    case 'realm_export':
      // No part of the register state: messages, typing and uploads are fetched on their own.
      break;
    case 'alert_words':
      if (state.alert_words) state.alert_words = [...event.alert_words];
      break;
    case 'muted_users':
      if (state.muted_users) state.muted_users = event.muted_users.map((m) => ({ ...m }));
      break;
    case 'custom_profile_fields':
      if (state.custom_profile_fields) state.custom_profile_fields = clone(event.fields);
      break;
    case 'default_streams':
      if (state.realm_default_streams) state.realm_default_streams = clone(event.default_streams);
      break;
    case 'realm_linkifiers':
      if (state.realm_linkifiers) state.realm_linkifiers = clone(event.realm_linkifiers);
      break;
    case 'realm_playgrounds':
      if (state.realm_playgrounds) state.realm_playgrounds = clone(event.realm_playgrounds);
      break;
    case 'realm_emoji':
      if (state.realm_emoji) state.realm_emoji = clone(event.realm_emoji);
      break;
    case 'realm_domains':
      applyRealmDomains(state, event);
      break;
    case 'drafts':
      applyDrafts(state, event);
      break;
    case 'scheduled_messages':
      applyScheduledMessages(state, event);
      break;
    case 'message':
      applyMessage(state, event.message, event.flags, options);
      break;
    case 'delete_message':
      applyDeleteMessage(
        state,
        'message_ids' in event ? event.message_ids : [event.message_id],
        event.message_type,
      );
      break;
    case 'update_message':
      applyUpdateMessage(state, event);
      break;
    case 'update_message_flags':
      applyFlags(state, event, options);
      break;
    case 'presence':
      applyPresence(state, event, options);
      break;
    case 'realm':
      applyRealm(state, event, options);
      break;
    case 'realm_user':
      applyRealmUser(state, event, options);
      break;
    case 'realm_bot':
      applyRealmBot(state, event);
      break;
    case 'realm_user_settings_defaults':
      if (state.realm_user_settings_defaults) {
        state.realm_user_settings_defaults[event.property] = clone(event.value);
      }
      break;
    case 'stream':
      applyStream(state, event, options);
      break;
    case 'subscription':
      applySubscription(state, event, options);
      break;
    case 'user_group':
      applyUserGroup(state, event, options);
      break;
    case 'user_settings':
      if (state.user_settings) state.user_settings[event.property] = clone(event.value);
      // A legacy client's top-level copy, which its own legacy event also updates.
      setTopLevel(state, event.property, event.value);
      break;
    case 'update_display_settings':
      setTopLevel(state, event.setting_name, event.setting);
      break;
    case 'update_global_notifications':
      setTopLevel(state, event.notification_name, event.setting);
      break;
    case 'user_status':
      applyUserStatus(state, event);
      break;
    case 'user_topic':
      applyUserTopic(state, event);
      break;
    case 'muted_topics':
      if (state.muted_topics) state.muted_topics = clone(event.muted_topics);
      break;
    default:
      throw new StateReducerError(`no case for event type ${(event as { type: string }).type}`);
  }
  return state;
}

const clone = <T>(value: T): T => structuredClone(value);

type Loose = Record<string, JsonValue | undefined>;

/** The state seen as its JSON members, for the parts named by the server's columns. */
const members = (state: RegisterState) => state as unknown as Loose;

/** A legacy top-level setting, updated only when the state has it (clients without user_settings_object). */
function setTopLevel(state: RegisterState, name: string, value: JsonValue): void {
  if (name in state) members(state)[name] = clone(value);
}

// ---- realm -------------------------------------------------------------------------------------

type RealmEvent = Extract<ReducibleEvent, { type: 'realm' }>;

/** A realm setting's value as `realm_<name>`, when the state has the realm part. */
export function realmSetting(state: RegisterState, name: string): JsonValue | undefined {
  return members(state)[`realm_${name}`];
}

function applyRealm(state: RegisterState, event: RealmEvent, options: ReducerOptions): void {
  const all = members(state);
  if (!('realm_name' in all)) return;
  if (event.op === 'deactivated') return;
  const changes: [string, JsonValue][] =
    event.op === 'update' ? [[event.property, event.value]] : Object.entries(event.data);
  for (const [name, value] of changes) {
    if (name === 'max_file_upload_size_mib') {
      all.max_file_upload_size_mib = value;
      continue;
    }
    all[`realm_${name}`] = clone(value);
    if (name === 'plan_type') all.zulip_plan_is_not_limited = value !== 2;
    if (name === 'jitsi_server_url') all.jitsi_server_url = value ?? all.server_jitsi_server_url;
    if (name === 'message_edit_history_visibility_policy') {
      all.realm_allow_edit_history = value !== 3;
    }
    if (name === 'authentication_methods' && isRecord(value)) {
      const enabled = (method: string) => {
        const entry = value[method];
        return isRecord(entry) && entry.enabled === true;
      };
      all.realm_email_auth_enabled = enabled('Email');
      all.realm_password_auth_enabled = enabled('Email') || enabled('LDAP');
    }
    const legacy = LEGACY_POLICIES[name];
    if (legacy) all[legacy.key] = legacyPolicy(state, value, legacy);
  }
  refreshPermissions(state, options.userId);
}

const isRecord = (value: JsonValue | undefined): value is { [key: string]: JsonValue } =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

interface LegacyPolicy {
  key: string;
  /** Policy value by system group name. */
  values: Record<string, number>;
  /** The value for any other group: the broadest policy. */
  broadest: number;
}

/** Zulip's deprecated policy enums, each derived from a group setting (FL 264, 280, 352). */
const COMMON_POLICY: Record<string, number> = {
  'role:members': 1,
  'role:administrators': 2,
  'role:fullmembers': 3,
  'role:moderators': 4,
};
const LEGACY_POLICIES: Record<string, LegacyPolicy> = {
  can_create_public_channel_group: {
    key: 'realm_create_public_stream_policy',
    values: COMMON_POLICY,
    broadest: 1,
  },
  can_create_private_channel_group: {
    key: 'realm_create_private_stream_policy',
    values: COMMON_POLICY,
    broadest: 1,
  },
  can_create_web_public_channel_group: {
    key: 'realm_create_web_public_stream_policy',
    values: { 'role:administrators': 2, 'role:moderators': 4, 'role:nobody': 6, 'role:owners': 7 },
    broadest: 4,
  },
  can_mention_many_users_group: {
    key: 'realm_wildcard_mention_policy',
    values: {
      'role:everyone': 1,
      'role:members': 2,
      'role:fullmembers': 3,
      'role:administrators': 5,
      'role:nobody': 6,
      'role:moderators': 7,
    },
    broadest: 1,
  },
};

function legacyPolicy(state: RegisterState, value: JsonValue, policy: LegacyPolicy): number {
  const group =
    typeof value === 'number' ? state.realm_user_groups?.find((g) => g.id === value) : undefined;
  return (group && policy.values[group.name]) ?? policy.broadest;
}

// ---- users -------------------------------------------------------------------------------------

type RealmUserEvent = Extract<ReducibleEvent, { type: 'realm_user' }>;

function findUser(state: RegisterState, userId: number): ApiUser | undefined {
  return (
    state.realm_users?.find((u) => u.user_id === userId) ??
    state.realm_non_active_users?.find((u) => u.user_id === userId)
  );
}

function applyRealmUser(
  state: RegisterState,
  event: RealmUserEvent,
  options: ReducerOptions,
): void {
  if (event.op === 'add') {
    if (!state.realm_users) return;
    const person = clone(event.person);
    if (options.clientGravatar && person.avatar_url?.startsWith('https://secure.gravatar.com/')) {
      person.avatar_url = null;
    }
    removeUser(state, person.user_id);
    (person.is_active ? state.realm_users : state.realm_non_active_users)?.push(person);
    return;
  }
  if (event.op === 'remove') {
    // Zulip's remove: the user became inaccessible. A client with `user_list_incomplete` drops
    // them; any other keeps them as "Unknown user", as register lists them (the address as
    // Zulip's web app makes it up, at `realm_bot_domain`).
    removeUser(state, event.person.user_id);
    if (!options.userListIncomplete && state.realm_users && state.realm_bot_domain) {
      state.realm_users.push(inaccessibleUser(event.person.user_id, state.realm_bot_domain));
    }
    return;
  }
  const person = event.person;
  const user = findUser(state, person.user_id);
  const self = person.user_id === options.userId;
  if (user) applyPersonUpdate(state, user, person, options);
  if (self) applySelfUpdate(state, person);
  if ('is_active' in person && state.realm_users && state.realm_non_active_users && user) {
    removeUser(state, user.user_id);
    (person.is_active ? state.realm_users : state.realm_non_active_users).push(user);
  }
  if ('is_active' in person && !person.is_active) forgetDeactivated(state, person.user_id, options);
  if ('role' in person || 'is_active' in person) refreshPermissions(state, options.userId);
}

/** A deactivated user leaves subscriber lists, groups and anonymous group settings (as in Zulip). */
function forgetDeactivated(state: RegisterState, userId: number, options: ReducerOptions): void {
  const without = (ids: number[]) => ids.filter((id) => id !== userId);
  if (options.includeSubscribers) {
    for (const entry of [
      ...(state.subscriptions ?? []),
      ...(state.unsubscribed ?? []),
      ...(state.never_subscribed ?? []),
    ]) {
      if (entry.subscribers) entry.subscribers = without(entry.subscribers);
    }
  }
  const anonymous = (setting: GroupSettingValue) => {
    if (typeof setting !== 'number') setting.direct_members = without(setting.direct_members);
  };
  for (const group of state.realm_user_groups ?? []) {
    group.members = without(group.members);
    for (const name of USER_GROUP_SETTINGS) anonymous(group[name]);
  }
  if (state.realm_user_groups) {
    for (const [name, value] of Object.entries(members(state))) {
      if (name.startsWith('realm_can_') && isGroupSetting(value)) anonymous(value);
    }
  }
}

const isGroupSetting = (value: JsonValue | undefined): value is GroupSettingValue =>
  typeof value === 'number' ||
  (isRecord(value) && Array.isArray(value.direct_members) && Array.isArray(value.direct_subgroups));

function removeUser(state: RegisterState, userId: number): void {
  if (state.realm_users) state.realm_users = state.realm_users.filter((u) => u.user_id !== userId);
  if (state.realm_non_active_users) {
    state.realm_non_active_users = state.realm_non_active_users.filter((u) => u.user_id !== userId);
  }
}

type PersonUpdate = Extract<RealmUserEvent, { op: 'update' }>['person'];

function applyPersonUpdate(
  state: RegisterState,
  user: ApiUser,
  person: PersonUpdate,
  options: ReducerOptions,
): void {
  if ('custom_profile_field' in person) {
    const { id, value, rendered_value } = person.custom_profile_field;
    const data = (user.profile_data ??= {});
    if (value === null) delete data[String(id)];
    else data[String(id)] = rendered_value === undefined ? { value } : { value, rendered_value };
    return;
  }
  if ('new_email' in person) {
    user.email = person.new_email;
    return;
  }
  if ('role' in person) {
    user.role = person.role;
    user.is_owner = person.role === ROLE_OWNER;
    user.is_admin = person.role === ROLE_OWNER || person.role === ROLE_ADMINISTRATOR;
    user.is_guest = person.role === ROLE_GUEST;
    return;
  }
  if ('avatar_url' in person) {
    // With client_gravatar, register leaves a Gravatar to the client (null) where the client
    // sees the user's address to compute it from: where the state holds its delivery_email.
    const computed =
      options.clientGravatar &&
      user.delivery_email !== null &&
      person.avatar_url?.startsWith('https://secure.gravatar.com/');
    user.avatar_url = computed ? null : person.avatar_url;
    user.avatar_version = person.avatar_version;
    return;
  }
  const { user_id: _id, ...fields } = person;
  Object.assign(user, clone(fields));
}

function applySelfUpdate(state: RegisterState, person: PersonUpdate): void {
  if (!('user_id' in state)) return;
  if ('full_name' in person) state.full_name = person.full_name;
  if ('new_email' in person) state.email = person.new_email;
  if ('delivery_email' in person && person.delivery_email !== null) {
    state.delivery_email = person.delivery_email;
  }
  if ('avatar_url' in person) {
    state.avatar_url = person.avatar_url ?? state.avatar_url;
    if (person.avatar_url_medium !== undefined) state.avatar_url_medium = person.avatar_url_medium;
    if (person.avatar_source !== undefined) members(state).avatar_source = person.avatar_source;
  }
  if ('role' in person) {
    state.is_owner = person.role === ROLE_OWNER;
    state.is_admin = person.role === ROLE_OWNER || person.role === ROLE_ADMINISTRATOR;
    state.is_moderator = person.role === ROLE_MODERATOR;
    state.is_guest = person.role === ROLE_GUEST;
  }
  if ('timezone' in person) setTopLevel(state, 'timezone', person.timezone);
}

// ---- groups and permissions --------------------------------------------------------------------

/** Whether `userId` belongs to the group (by id) or the anonymous group a setting holds. */
export function userInGroupSetting(
  state: RegisterState,
  userId: number,
  setting: GroupSettingValue,
): boolean {
  const groups = new Map((state.realm_user_groups ?? []).map((g) => [g.id, g]));
  const seen = new Set<number>();
  const inGroup = (id: number): boolean => {
    if (seen.has(id)) return false;
    seen.add(id);
    const group = groups.get(id);
    if (!group || group.deactivated) return false;
    return group.members.includes(userId) || group.direct_subgroup_ids.some(inGroup);
  };
  if (typeof setting === 'number') return inGroup(setting);
  return setting.direct_members.includes(userId) || setting.direct_subgroups.some(inGroup);
}

/** The permissions the state tells the user about, from the realm's settings and the groups. */
function refreshPermissions(state: RegisterState, userId: number): void {
  if (!('can_create_public_streams' in state) || !state.realm_user_groups) return;
  const setting = (name: string) => realmSetting(state, name) as GroupSettingValue | undefined;
  const has = (name: string) => {
    const value = setting(name);
    return value !== undefined && value !== null && userInGroupSetting(state, userId, value);
  };
  const admin = state.is_admin === true;
  state.can_create_public_streams = has('can_create_public_channel_group');
  state.can_create_private_streams = has('can_create_private_channel_group');
  state.can_create_web_public_streams = has('can_create_web_public_channel_group');
  state.can_create_streams =
    state.can_create_public_streams ||
    state.can_create_private_streams ||
    state.can_create_web_public_streams;
  state.can_subscribe_other_users = admin || has('can_add_subscribers_group');
  state.can_invite_others_to_realm =
    state.is_guest !== true && (admin || has('can_invite_users_group'));
}

type UserGroupEvent = Extract<ReducibleEvent, { type: 'user_group' }>;

function applyUserGroup(
  state: RegisterState,
  event: UserGroupEvent,
  options: ReducerOptions,
): void {
  const groups = state.realm_user_groups;
  if (!groups) return;
  if (event.op === 'add') {
    groups.push(clone(event.group));
    groups.sort((a, b) => a.id - b.id);
    return;
  }
  if (event.op === 'remove') {
    state.realm_user_groups = groups.filter((g) => g.id !== event.group_id);
    refreshPermissions(state, options.userId);
    return;
  }
  const group = groups.find((g) => g.id === event.group_id);
  if (!group) return;
  switch (event.op) {
    case 'update':
      Object.assign(group, clone(event.data));
      break;
    case 'add_members':
      group.members = sortedUnion(group.members, event.user_ids);
      break;
    case 'remove_members':
      group.members = group.members.filter((id) => !event.user_ids.includes(id));
      break;
    case 'add_subgroups':
      group.direct_subgroup_ids = sortedUnion(group.direct_subgroup_ids, event.direct_subgroup_ids);
      break;
    case 'remove_subgroups':
      group.direct_subgroup_ids = group.direct_subgroup_ids.filter(
        (id) => !event.direct_subgroup_ids.includes(id),
      );
      break;
  }
  refreshPermissions(state, options.userId);
}

const sortedUnion = (a: readonly number[], b: readonly number[]) =>
  [...new Set([...a, ...b])].sort((x, y) => x - y);

// ---- bots --------------------------------------------------------------------------------------

type RealmBotEvent = Extract<ReducibleEvent, { type: 'realm_bot' }>;

function applyRealmBot(state: RegisterState, event: RealmBotEvent): void {
  const bots = state.realm_bots;
  if (!bots) return;
  if (event.op === 'add') {
    state.realm_bots = [...bots.filter((b) => b.user_id !== event.bot.user_id), clone(event.bot)];
    return;
  }
  if (event.op === 'delete') {
    // The user no longer administers the bot (its owner changed): Zulip's apply_event drops it.
    // A deactivated bot stays listed, through an `update` of `is_active`.
    state.realm_bots = bots.filter((b) => b.user_id !== event.bot.user_id);
    return;
  }
  const bot = bots.find((b) => b.user_id === event.bot.user_id);
  if (!bot) return;
  const { user_id: _id, ...fields } = event.bot;
  Object.assign(bot, clone(fields));
}

// ---- channels and subscriptions ----------------------------------------------------------------

type StreamEvent = Extract<ReducibleEvent, { type: 'stream' }>;
type SubscriptionEvent = Extract<ReducibleEvent, { type: 'subscription' }>;

const byName = (a: { name: string }, b: { name: string }) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

function applyStream(state: RegisterState, event: StreamEvent, options: ReducerOptions): void {
  if (event.op === 'create') {
    for (const stream of event.streams) {
      if (state.streams && !state.streams.some((s) => s.stream_id === stream.stream_id)) {
        state.streams.push(clone(stream));
      }
      const known =
        state.subscriptions?.some((s) => s.stream_id === stream.stream_id) ||
        state.unsubscribed?.some((s) => s.stream_id === stream.stream_id) ||
        state.never_subscribed?.some((s) => s.stream_id === stream.stream_id);
      if (state.never_subscribed && !known) {
        const entry: NeverSubscribedChannel = clone(stream);
        if (options.includeSubscribers && !stream.invite_only) entry.subscribers = [];
        state.never_subscribed.push(entry);
      }
    }
    state.streams?.sort(byName);
    state.never_subscribed?.sort(byName);
    return;
  }
  if (event.op === 'delete') {
    const ids = new Set(event.streams.map((s) => s.stream_id));
    const keep = <T extends { stream_id: number }>(list: T[] | undefined) =>
      list?.filter((s) => !ids.has(s.stream_id));
    state.streams = keep(state.streams);
    state.subscriptions = keep(state.subscriptions);
    state.unsubscribed = keep(state.unsubscribed);
    state.never_subscribed = keep(state.never_subscribed);
    state.realm_default_streams = keep(state.realm_default_streams);
    return;
  }
  const { stream_id: streamId, property, value } = event;
  const update = (entry: Loose) => {
    entry[property] = clone(value);
    if (event.rendered_description !== undefined) {
      entry.rendered_description = event.rendered_description;
    }
    if (event.history_public_to_subscribers !== undefined) {
      entry.history_public_to_subscribers = event.history_public_to_subscribers;
    }
    if (event.is_web_public !== undefined) entry.is_web_public = event.is_web_public;
  };
  for (const list of [
    state.streams,
    state.subscriptions,
    state.unsubscribed,
    state.never_subscribed,
    state.realm_default_streams,
  ]) {
    for (const entry of list ?? []) {
      if (entry.stream_id === streamId) update(entry as unknown as Loose);
    }
  }
  if (property === 'name') {
    state.streams?.sort(byName);
    state.subscriptions?.sort(byName);
    state.unsubscribed?.sort(byName);
    state.never_subscribed?.sort(byName);
  }
}

function applySubscription(
  state: RegisterState,
  event: SubscriptionEvent,
  options: ReducerOptions,
): void {
  switch (event.op) {
    case 'add': {
      for (const sub of event.subscriptions) {
        const id = sub.stream_id;
        if (state.unsubscribed)
          state.unsubscribed = state.unsubscribed.filter((s) => s.stream_id !== id);
        if (state.never_subscribed) {
          state.never_subscribed = state.never_subscribed.filter((s) => s.stream_id !== id);
        }
        if (state.subscriptions) {
          const entry = clone(sub);
          if (!options.includeSubscribers) delete entry.subscribers;
          state.subscriptions = [...state.subscriptions.filter((s) => s.stream_id !== id), entry];
        }
        if (state.streams && !state.streams.some((s) => s.stream_id === id)) {
          state.streams.push(channelOf(sub));
          state.streams.sort(byName);
        }
      }
      state.subscriptions?.sort(byName);
      break;
    }
    case 'remove': {
      for (const { stream_id: id } of event.subscriptions) {
        const sub = state.subscriptions?.find((s) => s.stream_id === id);
        if (state.subscriptions)
          state.subscriptions = state.subscriptions.filter((s) => s.stream_id !== id);
        if (sub?.subscribers) sub.subscribers = sub.subscribers.filter((u) => u !== options.userId);
        if (sub && state.unsubscribed) {
          state.unsubscribed.push(sub);
          state.unsubscribed.sort(byName);
        }
      }
      break;
    }
    case 'update': {
      const sub = state.subscriptions?.find((s) => s.stream_id === event.stream_id);
      if (sub) (sub as unknown as Loose)[event.property] = clone(event.value);
      break;
    }
    case 'peer_add':
    case 'peer_remove': {
      if (!options.includeSubscribers) break;
      const ids = new Set(event.stream_ids);
      const lists: { stream_id: number; subscribers?: number[] }[][] = [
        state.subscriptions ?? [],
        state.unsubscribed ?? [],
        state.never_subscribed ?? [],
      ];
      for (const list of lists) {
        for (const entry of list) {
          if (!ids.has(entry.stream_id) || !entry.subscribers) continue;
          entry.subscribers =
            event.op === 'peer_add'
              ? sortedUnion(entry.subscribers, event.user_ids)
              : entry.subscribers.filter((id) => !event.user_ids.includes(id));
        }
      }
      break;
    }
  }
}

/** The channel a subscription describes, as `streams` lists it. */
function channelOf(sub: ApiSubscription): ApiChannel {
  const {
    subscribers: _s,
    color: _c,
    is_muted: _m,
    in_home_view: _h,
    pin_to_top: _p,
    desktop_notifications: _d,
    audible_notifications: _a,
    push_notifications: _pn,
    email_notifications: _e,
    wildcard_mentions_notify: _w,
    ...channel
  } = clone(sub);
  return channel;
}

// ---- messages ----------------------------------------------------------------------------------

function applyMessage(
  state: RegisterState,
  message: ApiMessage,
  flags: readonly string[],
  options: ReducerOptions,
): void {
  if (state.max_message_id !== undefined) {
    state.max_message_id = Math.max(state.max_message_id, message.id);
  }
  const others =
    message.type === 'private' && Array.isArray(message.display_recipient)
      ? message.display_recipient
          .map((r) => r.id)
          .filter((id) => id !== options.userId)
          .sort((a, b) => a - b)
      : null;
  if (state.unread_msgs && !flags.includes('read')) {
    addUnread(state.unread_msgs, message, others, options.userId);
    if (isMention(flags) && !state.unread_msgs.mentions.includes(message.id)) {
      state.unread_msgs.mentions.push(message.id);
    }
  }
  if (state.recent_private_conversations && others) {
    const key = others.join(',');
    const list = state.recent_private_conversations;
    const entry = list.find((c) => c.user_ids.join(',') === key);
    if (entry) entry.max_message_id = Math.max(entry.max_message_id, message.id);
    else list.push({ max_message_id: message.id, user_ids: others });
    list.sort((a, b) => b.max_message_id - a.max_message_id);
  }
  if (state.starred_messages && flags.includes('starred')) {
    state.starred_messages = sortedUnion(state.starred_messages, [message.id]);
  }
  if (message.type === 'stream') {
    // A channel's first message: Zulip's apply_event sets it here, with no event of its own.
    for (const entry of [...(state.subscriptions ?? []), ...(state.streams ?? [])]) {
      if (entry.stream_id === message.stream_id && entry.first_message_id === null) {
        entry.first_message_id = message.id;
      }
    }
  }
}

function addUnread(
  unread: UnreadMsgs,
  message: { id: number; type: 'stream' | 'private'; stream_id?: number; subject: string },
  others: number[] | null,
  userId: number,
): void {
  if (message.type === 'stream') {
    const key = message.subject.toLowerCase();
    let entry = unread.streams.find(
      (s) => s.stream_id === message.stream_id && s.topic.toLowerCase() === key,
    );
    if (!entry) {
      entry = { stream_id: message.stream_id ?? 0, topic: message.subject, unread_message_ids: [] };
      unread.streams.push(entry);
    }
    entry.unread_message_ids = sortedUnion(entry.unread_message_ids, [message.id]);
  } else if (others && others.length <= 1) {
    const other = others[0] ?? userId;
    let entry = unread.pms.find((p) => p.other_user_id === other);
    if (!entry) {
      entry = { other_user_id: other, sender_id: other, unread_message_ids: [] };
      unread.pms.push(entry);
    }
    entry.unread_message_ids = sortedUnion(entry.unread_message_ids, [message.id]);
  } else if (others) {
    const key = sortedUnion(others, [userId]).join(',');
    let entry = unread.huddles.find((h) => h.user_ids_string === key);
    if (!entry) {
      entry = { user_ids_string: key, unread_message_ids: [] };
      unread.huddles.push(entry);
    }
    entry.unread_message_ids = sortedUnion(entry.unread_message_ids, [message.id]);
  }
  unread.count = unreadIds(unread).length;
}

function unreadIds(unread: UnreadMsgs): number[] {
  return [
    ...unread.streams.flatMap((s) => s.unread_message_ids),
    ...unread.pms.flatMap((p) => p.unread_message_ids),
    ...unread.huddles.flatMap((h) => h.unread_message_ids),
  ];
}

function removeUnread(unread: UnreadMsgs, ids: ReadonlySet<number>): void {
  for (const s of unread.streams)
    s.unread_message_ids = s.unread_message_ids.filter((id) => !ids.has(id));
  for (const p of unread.pms)
    p.unread_message_ids = p.unread_message_ids.filter((id) => !ids.has(id));
  for (const h of unread.huddles)
    h.unread_message_ids = h.unread_message_ids.filter((id) => !ids.has(id));
  unread.streams = unread.streams.filter((s) => s.unread_message_ids.length);
  unread.pms = unread.pms.filter((p) => p.unread_message_ids.length);
  unread.huddles = unread.huddles.filter((h) => h.unread_message_ids.length);
  unread.mentions = unread.mentions.filter((id) => !ids.has(id));
  unread.count = unreadIds(unread).length;
}

function applyDeleteMessage(
  state: RegisterState,
  messageIds: readonly number[],
  _messageType: 'stream' | 'private',
): void {
  const ids = new Set(messageIds);
  if (state.unread_msgs) removeUnread(state.unread_msgs, ids);
  if (state.starred_messages)
    state.starred_messages = state.starred_messages.filter((id) => !ids.has(id));
}

type UpdateMessageEvent = Extract<ReducibleEvent, { type: 'update_message' }>;

function applyUpdateMessage(state: RegisterState, event: UpdateMessageEvent): void {
  const unread = state.unread_msgs;
  if (!unread) return;
  const moved = new Set(event.message_ids);
  if (event.new_stream_id !== undefined || event.subject !== undefined) {
    const movedEntries: { id: number; streamId: number; topic: string }[] = [];
    for (const s of unread.streams) {
      for (const id of s.unread_message_ids) {
        if (moved.has(id)) {
          movedEntries.push({
            id,
            streamId: event.new_stream_id ?? s.stream_id,
            topic: event.subject ?? s.topic,
          });
        }
      }
    }
    if (movedEntries.length) {
      const mentions = unread.mentions;
      removeUnread(unread, new Set(movedEntries.map((m) => m.id)));
      unread.mentions = mentions;
      for (const m of movedEntries) {
        addUnread(
          unread,
          { id: m.id, type: 'stream', stream_id: m.streamId, subject: m.topic },
          null,
          0,
        );
      }
    }
  }
  if (event.content !== undefined && !event.rendering_only) {
    const isUnread = unreadIds(unread).includes(event.message_id);
    const mentioned = isMention(event.flags);
    unread.mentions = unread.mentions.filter((id) => id !== event.message_id);
    if (isUnread && mentioned) unread.mentions = sortedUnion(unread.mentions, [event.message_id]);
  }
}

type FlagsEvent = Extract<ReducibleEvent, { type: 'update_message_flags' }>;

function applyFlags(state: RegisterState, event: FlagsEvent, options: ReducerOptions): void {
  if (event.flag === 'starred' && state.starred_messages) {
    state.starred_messages =
      event.op === 'add'
        ? sortedUnion(state.starred_messages, event.messages)
        : state.starred_messages.filter((id) => !event.messages.includes(id));
  }
  if (event.flag !== 'read' || !state.unread_msgs) return;
  const unread = state.unread_msgs;
  if (event.op === 'add') {
    if (event.all) {
      unread.streams = [];
      unread.pms = [];
      unread.huddles = [];
      unread.mentions = [];
      unread.count = 0;
    } else {
      removeUnread(unread, new Set(event.messages));
    }
    return;
  }
  for (const id of event.messages) {
    const details = event.message_details?.[String(id)];
    if (!details) continue;
    if (details.type === 'stream') {
      addUnread(
        unread,
        { id, type: 'stream', stream_id: details.stream_id, subject: details.topic },
        null,
        options.userId,
      );
    } else {
      const others = details.user_ids.filter((u) => u !== options.userId);
      addUnread(unread, { id, type: 'private', subject: '' }, others, options.userId);
    }
    if (details.mentioned && !unread.mentions.includes(id)) {
      unread.mentions = sortedUnion(unread.mentions, [id]);
    }
  }
}

// ---- presence, status, topics ------------------------------------------------------------------

type PresenceEvent = Extract<ReducibleEvent, { type: 'presence' }>;

function applyPresence(state: RegisterState, event: PresenceEvent, options: ReducerOptions): void {
  if (!state.presences) return;
  const website = event.presence.website;
  if (!website) return;
  if (options.slimPresence) {
    const key = String(event.user_id);
    const before = state.presences[key] as ModernPresence | undefined;
    const idle = Math.max(before?.idle_timestamp ?? 0, website.timestamp);
    state.presences[key] = {
      active_timestamp:
        website.status === 'active'
          ? website.timestamp
          : (before?.active_timestamp ?? website.timestamp),
      idle_timestamp: idle,
    };
  } else {
    const { client, status, timestamp } = website;
    state.presences[event.email] = {
      website: { ...website },
      aggregated: { client, status, timestamp },
    };
  }
  state.server_timestamp = event.server_timestamp;
}

type UserStatusEvent = Extract<ReducibleEvent, { type: 'user_status' }>;

function applyUserStatus(state: RegisterState, event: UserStatusEvent): void {
  if (!state.user_status) return;
  const key = String(event.user_id);
  const status: ApiUserStatus = { ...(state.user_status[key] ?? {}) };
  if (event.away !== undefined) {
    if (event.away) status.away = true;
    else delete status.away;
  }
  if (event.status_text !== undefined) {
    if (event.status_text === '') delete status.status_text;
    else status.status_text = event.status_text;
  }
  if (event.emoji_name !== undefined) {
    if (event.emoji_name === '') {
      delete status.emoji_name;
      delete status.emoji_code;
      delete status.reaction_type;
    } else {
      status.emoji_name = event.emoji_name;
      if (event.emoji_code !== undefined) status.emoji_code = event.emoji_code;
      if (event.reaction_type !== undefined) status.reaction_type = event.reaction_type;
    }
  }
  if (Object.keys(status).length) state.user_status[key] = status;
  else delete state.user_status[key];
}

type UserTopicEvent = Extract<ReducibleEvent, { type: 'user_topic' }>;

function applyUserTopic(state: RegisterState, event: UserTopicEvent): void {
  if (!state.user_topics) return;
  const same = (t: ApiUserTopic) =>
    t.stream_id === event.stream_id &&
    t.topic_name.toLowerCase() === event.topic_name.toLowerCase();
  const { type: _t, id: _i, ...entry } = event as UserTopicEvent & { id?: number };
  const existing = state.user_topics.findIndex(same);
  if (event.visibility_policy === 0) {
    if (existing >= 0) state.user_topics.splice(existing, 1);
  } else if (existing >= 0) {
    state.user_topics[existing] = entry;
  } else {
    state.user_topics.push(entry);
  }
}

// ---- lists of the user's own things ------------------------------------------------------------

type DraftsEvent = Extract<ReducibleEvent, { type: 'drafts' }>;

function applyDrafts(state: RegisterState, event: DraftsEvent): void {
  if (!state.drafts) return;
  if (event.op === 'add') state.drafts.push(...clone(event.drafts));
  else if (event.op === 'update') {
    state.drafts = state.drafts.map((d) => (d.id === event.draft.id ? clone(event.draft) : d));
  } else state.drafts = state.drafts.filter((d) => d.id !== event.draft_id);
  // The register lists drafts by their last edit, oldest first.
  state.drafts.sort((a, b) => a.timestamp - b.timestamp || a.id - b.id);
}

type ScheduledEvent = Extract<ReducibleEvent, { type: 'scheduled_messages' }>;

function applyScheduledMessages(state: RegisterState, event: ScheduledEvent): void {
  if (!state.scheduled_messages) return;
  if (event.op === 'add') state.scheduled_messages.push(...clone(event.scheduled_messages));
  else if (event.op === 'update') {
    const id = event.scheduled_message.scheduled_message_id;
    state.scheduled_messages = state.scheduled_messages.map((m) =>
      m.scheduled_message_id === id ? clone(event.scheduled_message) : m,
    );
  } else {
    state.scheduled_messages = state.scheduled_messages.filter(
      (m) => m.scheduled_message_id !== event.scheduled_message_id,
    );
  }
  state.scheduled_messages.sort(
    (a, b) =>
      a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp ||
      a.scheduled_message_id - b.scheduled_message_id,
  );
}

type RealmDomainsEvent = Extract<ReducibleEvent, { type: 'realm_domains' }>;

function applyRealmDomains(state: RegisterState, event: RealmDomainsEvent): void {
  if (!state.realm_domains) return;
  if (event.op === 'remove') {
    state.realm_domains = state.realm_domains.filter((d) => d.domain !== event.domain);
    return;
  }
  const domain = clone(event.realm_domain);
  state.realm_domains = [...state.realm_domains.filter((d) => d.domain !== domain.domain), domain];
  state.realm_domains.sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
}
