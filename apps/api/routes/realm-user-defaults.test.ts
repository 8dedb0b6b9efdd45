import { Role } from '../../../libs/domain/users/roles';
import { makeBot, makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;

beforeAll(async () => {
  org = await organization();
  ({ t } = org);
});
afterAll(() => org.close());

const patch = (who: TestUser, form: Record<string, string | number | boolean>) =>
  org.as(who).patch('/realm/user_settings_defaults', form);

/** Defaults added after feature level 247 (the spec's newer settings). */
const NEWER_DEFAULTS = [
  'web_channel_default_view',
  'receives_typing_notifications',
  'web_suggest_update_timezone',
  'web_animate_image_previews',
  'web_navigate_to_sent_message',
  'hide_ai_features',
  'resolved_topic_notice_auto_read_policy',
  'allow_private_data_export',
];

async function defaultsState(who: TestUser): Promise<Record<string, unknown>> {
  const state = await org.register(who, {
    fetch_event_types: JSON.stringify(['realm_user_settings_defaults']),
  });
  const defaults = { ...(state.realm_user_settings_defaults as Record<string, unknown>) };
  for (const name of NEWER_DEFAULTS) delete defaults[name];
  expectOpenApiResponse('/register', 'post', { ...state, realm_user_settings_defaults: defaults });
  return state.realm_user_settings_defaults as Record<string, unknown>;
}

describe('PATCH /realm/user_settings_defaults', () => {
  it('changes defaults, emits one event per changed setting and shows them in register', async () => {
    const member = await makeUser(t, org.realm);
    const before = await defaultsState(member);
    expect(before).toMatchObject({
      left_side_userlist: false,
      emojiset: 'google',
      web_home_view: 'inbox',
      default_language: 'en',
      available_notification_sounds: expect.arrayContaining(['zulip']),
      emojiset_choices: expect.arrayContaining([{ key: 'google', text: 'Google' }]),
    });
    expect(before).not.toHaveProperty('timezone');

    const mark = await outboxMark(t);
    const res = await patch(org.owner, {
      left_side_userlist: true,
      emojiset: 'text',
      web_home_view: 'inbox', // unchanged: no event
      color_scheme: 2,
      email_notifications_batching_period_seconds: 300,
      dense_mode: true, // removed from Zulip's settings since
    });
    expect(res.status).toBe(200);
    expectOpenApiResponse('/realm/user_settings_defaults', 'patch', res.body);
    expect(res.body.ignored_parameters_unsupported).toEqual(['dense_mode']);

    const events = await eventsAfter(t, mark);
    expect(events.map((e) => e.event)).toEqual([
      { type: 'realm_user_settings_defaults', op: 'update', property: 'color_scheme', value: 2 },
      {
        type: 'realm_user_settings_defaults',
        op: 'update',
        property: 'left_side_userlist',
        value: true,
      },
      { type: 'realm_user_settings_defaults', op: 'update', property: 'emojiset', value: 'text' },
      {
        type: 'realm_user_settings_defaults',
        op: 'update',
        property: 'email_notifications_batching_period_seconds',
        value: 300,
      },
    ]);
    expect(events[0].users).toEqual(expect.arrayContaining([org.owner.user.id, member.user.id]));

    const after = await defaultsState(member);
    expect(after).toMatchObject({
      left_side_userlist: true,
      emojiset: 'text',
      color_scheme: 2,
      email_notifications_batching_period_seconds: 300,
    });
    // Existing users keep their own settings.
    const own = await t.db.user.findUniqueOrThrow({ where: { id: member.user.id } });
    expect(own.emojiset).toBe('google');

    const unchanged = await outboxMark(t);
    const again = await patch(org.owner, { emojiset: 'text' });
    expect(again.status).toBe(200);
    expect(await eventsAfter(t, unchanged)).toEqual([]);
  });

  it('gives new people (not bots) the defaults', async () => {
    await patch(org.owner, {
      twenty_four_hour_time: true,
      send_read_receipts: false,
      email_address_visibility: 3,
      enable_stream_push_notifications: true,
    });
    const person = await makeUser(t, org.realm);
    expect(person.user).toMatchObject({
      twentyFourHourTime: true,
      sendReadReceipts: false,
      emailAddressVisibility: 3,
      enableStreamPushNotifications: true,
    });
    const bot = await makeBot(t, org.realm, org.owner.user);
    expect(bot.user).toMatchObject({ twentyFourHourTime: false, sendReadReceipts: true });
    await patch(org.owner, {
      twenty_four_hour_time: false,
      send_read_receipts: true,
      email_address_visibility: 1,
      enable_stream_push_notifications: false,
    });
  });

  it('validates each setting as PATCH /settings does', async () => {
    const cases: [Record<string, string | number>, string][] = [
      [{ color_scheme: 9 }, 'Invalid color_scheme'],
      [{ left_side_userlist: 'maybe' }, 'left_side_userlist is not a boolean'],
      [{ web_font_size_px: 'big' }, 'web_font_size_px is not an integer'],
      [{ email_notifications_batching_period_seconds: 10 }, 'too small'],
    ];
    for (const [form, msg] of cases) {
      const res = await patch(org.owner, form);
      const own = await org.as(org.owner).patch('/settings', form);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(own.body);
      expect(res.body.msg).toContain(msg);
    }
    // Settings each user chooses for themselves are not organization defaults.
    const personal = await patch(org.owner, {
      default_language: 'de',
      enable_login_emails: false,
      timezone: 'UTC',
    });
    expect(personal.body.ignored_parameters_unsupported).toEqual([
      'default_language',
      'enable_login_emails',
      'timezone',
    ]);
    const row = await t.db.realmUserDefault.findUniqueOrThrow({ where: { realmId: org.realm.id } });
    expect(row).toMatchObject({ defaultLanguage: 'en', enableLoginEmails: true, colorScheme: 2 });
  });

  it('is for administrators only', async () => {
    for (const role of [Role.MEMBER, Role.GUEST, Role.MODERATOR]) {
      const actor = await makeUser(t, org.realm, { role });
      const res = await patch(actor, { enter_sends: true });
      expect(res.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'Must be an organization administrator',
      });
    }
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    expect((await patch(admin, { enter_sends: true })).status).toBe(200);
    const row = await t.db.realmUserDefault.findUniqueOrThrow({ where: { realmId: org.realm.id } });
    expect(row.enterSends).toBe(true);
  });
});
