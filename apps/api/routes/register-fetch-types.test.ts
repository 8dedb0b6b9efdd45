import request from 'supertest';
import type { TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { registerKeysByFetchType } from '../../../test/openapi';
import { type Organization, organization } from '../../../test/organization';

/**
 * Issue 14: `POST /register` answers every `fetch_event_types` name of Zulip's reference with
 * exactly the keys the reference says that name adds (zulip-terminal asks for `realm_user_groups`
 * and `starred_messages` by those names).
 */
let t: TestContext;
let org: Organization;
let alice: TestUser;

beforeAll(async () => {
  org = await organization({ members: { alice: 'member' } });
  ({ t } = org);
  ({ alice } = org.users);
});
afterAll(() => org.close());

/** The fetch names the reference documents (issue 14 lists them). */
const FETCH_NAMES = [
  'realm',
  'realm_user',
  'subscription',
  'stream',
  'presence',
  'message',
  'update_message_flags',
  'custom_profile_fields',
  'video_calls',
  'user_topic',
  'user_status',
  'user_settings',
  'update_display_settings',
  'update_global_notifications',
  'stop_words',
  'starred_messages',
  'scheduled_messages',
  'recent_private_conversations',
  'realm_user_settings_defaults',
  'realm_user_groups',
  'realm_playgrounds',
  'realm_linkifiers',
  'realm_filters',
  'realm_incoming_webhook_bots',
  'realm_emoji',
  'realm_embedded_bots',
  'realm_domains',
  'realm_bot',
  'onboarding_steps',
  'muted_users',
  'muted_topics',
  'giphy',
  'default_streams',
  'default_stream_groups',
  'alert_words',
  'drafts',
];

/** Keys every registration returns, whatever it asks for. */
const ALWAYS = [
  'result',
  'msg',
  'queue_id',
  'last_event_id',
  'zulip_feature_level',
  'zulip_version',
  'zulip_merge_base',
];

/**
 * Keys whose description in the reference names no fetch type; Zulip's fetch_initial_state_data
 * sends them under these names. (`demo_organization_scheduled_deletion_date` is only for demo
 * organizations.)
 */
const UNATTRIBUTED: Record<string, string[]> = {
  drafts: ['drafts'],
  realm: [
    'realm_date_created',
    'realm_create_multiuse_invite_group',
    'realm_require_unique_names',
    'realm_jitsi_server_url',
    'realm_can_access_all_users_group',
    'server_jitsi_server_url',
    'server_presence_ping_interval_seconds',
    'server_presence_offline_threshold_seconds',
    'server_typing_started_expiry_period_milliseconds',
    'server_typing_stopped_wait_period_milliseconds',
    'server_typing_started_wait_period_milliseconds',
  ],
};

/** Keys of the reference (feature level 247) that Zulip dropped before our feature level. */
const REMOVED: Record<string, string[]> = {
  realm: [
    // Replaced by group settings: can_delete_own_message_group (FL 291),
    // can_manage_all_groups (FL 299), can_add_custom_emoji_group (FL 307),
    // can_move_messages_between_channels_group (FL 310), can_move_messages_between_topics_group
    // (FL 316), can_invite_users_group (FL 321), direct_message_permission_group (FL 270),
    // can_add_subscribers_group (FL 341), can_create_bots_group (FL 344).
    'realm_delete_own_message_policy',
    'realm_user_group_edit_policy',
    'realm_add_custom_emoji_policy',
    'realm_move_messages_between_streams_policy',
    'realm_edit_topic_policy',
    'realm_invite_to_realm_policy',
    'realm_private_message_policy',
    'realm_invite_to_stream_policy',
    'realm_bot_creation_policy',
  ],
  // FL 364.
  update_display_settings: ['dense_mode'],
};

/** Keys newer than the reference (the spec wins there), besides new `realm_*` settings. */
const NEWER: Record<string, string[]> = {
  realm: ['realm_url'],
  presence: ['presence_last_update_id'],
};

function expectedKeys(reference: Map<string, Set<string>>, name: string): string[] {
  const keys = new Set([...(reference.get(name) ?? []), ...(UNATTRIBUTED[name] ?? [])]);
  for (const key of REMOVED[name] ?? []) keys.delete(key);
  return [...keys].sort();
}

const registerFor = (fetchEventTypes: string[], capabilities: Record<string, boolean> = {}) =>
  org.register(alice, {
    fetch_event_types: JSON.stringify(fetchEventTypes),
    client_capabilities: JSON.stringify(capabilities),
  });

const returnedKeys = (body: Record<string, unknown>) =>
  Object.keys(body)
    .filter((key) => !ALWAYS.includes(key))
    .sort();

describe('POST /register fetch_event_types', () => {
  const reference = registerKeysByFetchType();

  it('the reference attributes keys to every name the issue lists', () => {
    const documented = [...reference.keys()].filter((name) => !name.includes('+'));
    expect(documented.filter((name) => !FETCH_NAMES.includes(name))).toEqual([]);
  });

  it.each(FETCH_NAMES)('%s alone returns exactly the keys Zulip returns for it', async (name) => {
    const body = await registerFor([name]);
    const returned = returnedKeys(body);
    const expected = expectedKeys(reference, name);
    const missing = expected.filter((key) => !returned.includes(key));
    const extra = returned.filter(
      (key) =>
        !expected.includes(key) &&
        !(NEWER[name] ?? []).includes(key) &&
        !(name === 'realm' && key.startsWith('realm_')),
    );
    expect({ name, missing, extra }).toEqual({ name, missing: [], extra: [] });
  });

  it('takes the event types Zulip names differently: user_group is realm_user_groups', async () => {
    const body = await registerFor(['user_group']);
    expect(returnedKeys(body)).toEqual(['realm_user_groups']);
  });

  it('returns unread_msgs only for message and update_message_flags together', async () => {
    const both = await registerFor(['message', 'update_message_flags']);
    expect(returnedKeys(both)).toEqual(
      [...(reference.get('message+update_message_flags') ?? []), 'max_message_id'].sort(),
    );
    expect(returnedKeys(await registerFor(['update_message_flags']))).toEqual([]);
  });

  it('leaves the legacy settings out for user_settings_object clients', async () => {
    const body = await registerFor(
      ['user_settings', 'update_display_settings', 'update_global_notifications'],
      { user_settings_object: true },
    );
    expect(returnedKeys(body)).toEqual(['user_settings']);
  });

  it('sends muted_topics only to clients that do not ask for user_topic', async () => {
    expect(returnedKeys(await registerFor(['user_topic', 'muted_topics']))).toEqual([
      'user_topics',
    ]);
  });

  it('serves the emoji data server_emoji_data_url names', async () => {
    const body = await registerFor(['realm']);
    const url = new URL(String(body.server_emoji_data_url));
    expect(url.host).toBe(org.host);
    const res = await request(t.app).get(url.pathname).set('Host', org.host);
    expect(res.status).toBe(200);
    expect(res.body.code_to_names['1f600']).toEqual(expect.arrayContaining(['grinning']));
  });

  it('returns the starred message IDs', async () => {
    const channel = await t.db.stream.findFirstOrThrow({
      where: { realmId: org.realm.id, name: 'general' },
    });
    const sent = await t.db.message.create({
      data: {
        realmId: org.realm.id,
        senderId: alice.user.id,
        recipientId: channel.recipientId!,
        subject: 'stars',
        content: 'a star',
        renderedContent: '<p>a star</p>',
        isChannelMessage: true,
      },
    });
    await t.db.userMessage.create({
      data: { userId: alice.user.id, messageId: sent.id, flags: 2 },
    });
    const body = await registerFor(['starred_messages']);
    expect(body.starred_messages).toEqual([sent.id]);
  });
});
