import { register } from '../../../test/events-factories';
import { makeBot, makeRealm, makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { api } from '../../../test/requests';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;

beforeAll(async () => {
  org = await organization();
  ({ t } = org);
});
afterAll(() => org.close());

const post = (who: TestUser, form: Record<string, string | number | boolean>) =>
  org.as(who).post('/users/me/status', form);
const getStatus = (userId: number) => org.as(org.owner).get(`/users/${userId}/status`);

describe('POST /users/me/status', () => {
  it('sets text and emoji, emits user_status, and GET shows it', async () => {
    const member = await makeUser(t, org.realm);
    const mark = await outboxMark(t);
    const res = await post(member, { status_text: ' In a meeting ', emoji_name: 'car' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const events = await eventsAfter(t, mark);
    expect(events).toHaveLength(1);
    expect(events[0].event).toEqual({
      type: 'user_status',
      user_id: member.user.id,
      status_text: 'In a meeting',
      emoji_name: 'car',
      emoji_code: '1f697',
      reaction_type: 'unicode_emoji',
    });
    expect(events[0].users).toContain(org.owner.user.id);
    const shown = await getStatus(member.user.id);
    expect(shown.body).toEqual({
      result: 'success',
      msg: '',
      status: {
        status_text: 'In a meeting',
        emoji_name: 'car',
        emoji_code: '1f697',
        reaction_type: 'unicode_emoji',
      },
    });
  });

  it('changes only the passed fields and clears with empty strings', async () => {
    const member = await makeUser(t, org.realm);
    await post(member, { status_text: 'Busy', emoji_name: 'car' });
    await post(member, { status_text: '' });
    expect((await getStatus(member.user.id)).body.status).toEqual({
      emoji_name: 'car',
      emoji_code: '1f697',
      reaction_type: 'unicode_emoji',
    });
    await post(member, { emoji_name: '' });
    expect((await getStatus(member.user.id)).body.status).toEqual({});
  });

  it('maps the deprecated away flag to presence_enabled', async () => {
    const member = await makeUser(t, org.realm);
    const mark = await outboxMark(t);
    expect((await post(member, { away: true })).status).toBe(200);
    const row = await t.db.user.findUniqueOrThrow({ where: { id: member.user.id } });
    expect(row.presenceEnabled).toBe(false);
    expect((await eventsAfter(t, mark)).map((e) => e.event)).toContainEqual({
      type: 'user_status',
      user_id: member.user.id,
      away: true,
    });
    expect((await getStatus(member.user.id)).body.status).toEqual({ away: true });
  });

  it('accepts custom and extra emoji with explicit codes', async () => {
    const member = await makeUser(t, org.realm);
    const custom = await t.db.realmEmoji.create({
      data: { realmId: org.realm.id, name: 'partyparrot', fileName: 'p.png' },
    });
    const ok = await post(member, {
      emoji_name: 'partyparrot',
      emoji_code: String(custom.id),
      reaction_type: 'realm_emoji',
    });
    expect(ok.status).toBe(200);
    const extra = await post(member, {
      emoji_name: 'zulip',
      emoji_code: 'zulip',
      reaction_type: 'zulip_extra_emoji',
    });
    expect(extra.status).toBe(200);
  });

  it('refuses each documented bad request and changes nothing', async () => {
    const member = await makeUser(t, org.realm);
    const cases: [Record<string, string>, string][] = [
      [{}, 'Client did not pass any new values.'],
      [{ status_text: 'x'.repeat(61) }, 'status_text is too long (limit: 60 characters)'],
      [
        { status_text: 'a', emoji_code: '1f697' },
        'Client must pass emoji_name if they pass either emoji_code or reaction_type.',
      ],
      [
        { status_text: 'a', reaction_type: 'unicode_emoji' },
        'Client must pass emoji_name if they pass either emoji_code or reaction_type.',
      ],
      [{ emoji_name: 'not_an_emoji_name' }, "Emoji 'not_an_emoji_name' does not exist"],
      [
        { emoji_name: 'smile', emoji_code: '1f697', reaction_type: 'unicode_emoji' },
        'Invalid emoji name.',
      ],
      [
        { emoji_name: 'car', emoji_code: 'zzzz', reaction_type: 'unicode_emoji' },
        'Invalid emoji code.',
      ],
      [
        { emoji_name: 'ghost', emoji_code: '99999', reaction_type: 'realm_emoji' },
        'Invalid custom emoji.',
      ],
      [{ emoji_name: 'car', emoji_code: '1f697', reaction_type: 'other' }, 'Invalid emoji type.'],
    ];
    for (const [form, msg] of cases) {
      const res = await post(member, form);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg });
    }
    expect(await t.db.userStatus.count({ where: { userId: member.user.id } })).toBe(0);
    // Exactly 60 characters is allowed.
    expect((await post(member, { status_text: 'y'.repeat(60) })).status).toBe(200);
  });
});

describe('GET /users/{user_id}/status', () => {
  it('refuses unknown users and bots as no such user, and deactivated users', async () => {
    const bot = await makeBot(t, org.realm, org.owner.user);
    const gone = await makeUser(t, org.realm);
    expect((await post(gone, { status_text: 'Leaving' })).status).toBe(200);
    await t.db.user.update({ where: { id: gone.user.id }, data: { isActive: false } });
    const noSuchUser = { result: 'error', code: 'BAD_REQUEST', msg: 'No such user' };
    const unknown = await getStatus(999999);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual(noSuchUser);
    const ofBot = await getStatus(bot.user.id);
    expect(ofBot.status).toBe(400);
    expect(ofBot.body).toEqual(noSuchUser);
    const deactivated = await getStatus(gone.user.id);
    expect(deactivated.status).toBe(400);
    expect(deactivated.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'User is deactivated',
    });
  });
});

describe('POST /register user_status', () => {
  it('marks invisible users away, agreeing with GET /users/{id}/status', async () => {
    const own = await makeRealm(t);
    const call = (method: 'get' | 'post' | 'patch', path: string, auth: string, form = {}) =>
      api(t, own.host, method, path, auth, form);
    const [away, awayWithText, back, invisibleNoStatus, plain] = await Promise.all(
      [1, 2, 3, 4, 5].map(() => makeUser(t, own.realm)),
    );
    const set = async (auth: string, form: Record<string, string | boolean>) =>
      expect((await call('post', '/users/me/status', auth, form)).status).toBe(200);
    await set(away.auth, { away: true });
    await set(awayWithText.auth, { away: true, status_text: 'On leave' });
    await set(back.auth, { away: true, status_text: 'Back soon' });
    await set(back.auth, { away: false });
    // Invisible through the setting, never having set a status: Zulip shows no status row.
    expect(
      (await call('patch', '/settings', invisibleNoStatus.auth, { presence_enabled: false }))
        .status,
    ).toBe(200);

    const state = await register(t, own.host, own.owner.auth, {
      fetch_event_types: JSON.stringify(['user_status']),
    });
    expect(state.user_status).toEqual({
      [away.user.id]: { away: true },
      [awayWithText.user.id]: { away: true, status_text: 'On leave' },
      [back.user.id]: { status_text: 'Back soon' },
    });
    const shown = state.user_status as Record<string, object>;
    for (const u of [away, awayWithText, back, invisibleNoStatus, plain]) {
      const res = await call('get', `/users/${u.user.id}/status`, own.owner.auth);
      expect(res.status).toBe(200);
      expect(res.body.status).toEqual(shown[String(u.user.id)] ?? {});
    }
  });
});
