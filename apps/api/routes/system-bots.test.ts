import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { User } from '../../../generated/prisma/client';
import { findNotificationBot } from '../../../libs/domain/bots/notification-bot';
import { decryptApiKey } from '../../../libs/domain/users/api-keys';
import { makeRealm, type TestUser } from '../../../test/factories';
import { basicAuth, type TestContext } from '../../../test/harness';
import { openApiErrors } from '../../../test/openapi';
import { type Organization, organization } from '../../../test/organization';

/**
 * Issue 14: the notification bot is a system bot, which Zulip's clients know as a cross-realm bot:
 * listed in `cross_realm_bots` only, no one's to administer, and unusable through the API.
 */
let t: TestContext;
let org: Organization;
let admin: TestUser;
let bot: User;

beforeAll(async () => {
  org = await organization({ members: { admin: 'administrator' } });
  ({ t } = org);
  ({ admin } = org.users);
  bot = (await findNotificationBot(t.db, org.realm.id))!;
});
afterAll(() => org.close());

describe('system bots', () => {
  it('are listed in cross_realm_bots with is_system_bot, not in realm_users', async () => {
    const body = await org.register(admin, {
      fetch_event_types: JSON.stringify(['realm_user']),
    });
    const ids = (list: unknown) => (list as { user_id: number }[]).map((u) => u.user_id);
    expect(ids(body.realm_users)).not.toContain(bot.id);
    expect(ids(body.realm_non_active_users)).not.toContain(bot.id);
    expect(body.cross_realm_bots).toEqual([
      expect.objectContaining({
        user_id: bot.id,
        email: bot.email,
        delivery_email: bot.email,
        full_name: 'Notification Bot',
        is_bot: true,
        is_system_bot: true,
        is_active: true,
        bot_owner_id: null,
        bot_type: 1,
      }),
    ]);
    // Checked against the reference's cross_realm_bots (newer fields of the spec aside).
    expect(
      openApiErrors('/register', 'post', body, {
        newerFields: ['realm_users', 'realm_non_active_users'],
      }),
    ).toEqual([]);
  });

  it('are not among the organization users or its bots', async () => {
    const users = await org.as(admin).get('/users');
    expect((users.body.members as { user_id: number }[]).map((u) => u.user_id)).not.toContain(
      bot.id,
    );
    const bots = await org.as(admin).get('/bots');
    expect((bots.body.bots as { user_id: number }[]).map((b) => b.user_id)).not.toContain(bot.id);
    const owned = await org.register(admin, {
      fetch_event_types: JSON.stringify(['realm_bot']),
    });
    expect(owned.realm_bots).toEqual([]);
    // Zulip still describes a cross-realm bot by ID.
    const one = await org.as(admin).get(`/users/${bot.id}`);
    expect(one.body.user).toMatchObject({ user_id: bot.id, is_system_bot: true });
  });

  it('no one can obtain or regenerate their API key, or change or deactivate them', async () => {
    for (const [method, url] of [
      ['post', `/bots/${bot.id}/api_key/regenerate`],
      ['get', `/bots/${bot.id}/zuliprc`],
      ['patch', `/bots/${bot.id}`],
      ['delete', `/bots/${bot.id}`],
    ] as const) {
      const res = await org.as(org.owner)[method](url, { full_name: 'Mine' });
      expect({ url, body: res.body }).toEqual({
        url,
        body: { result: 'error', msg: 'No such bot', code: 'BAD_REQUEST' },
      });
    }
    for (const method of ['patch', 'delete'] as const) {
      const res = await org.as(org.owner)[method](`/users/${bot.id}`, { full_name: 'Mine' });
      expect(res.body).toEqual({ result: 'error', msg: 'No such user', code: 'BAD_REQUEST' });
    }
    const after = await t.db.user.findUniqueOrThrow({ where: { id: bot.id } });
    expect(after).toMatchObject({
      fullName: 'Notification Bot',
      isActive: true,
      apiKeyHash: bot.apiKeyHash,
    });
  });

  it('cannot be acted as through the API, even with their key', async () => {
    const key = decryptApiKey(bot.apiKeyCiphertext, t.config.secretKey);
    const res = await org
      .as({ auth: basicAuth(bot.email, key) })
      .post('/messages', { type: 'stream', to: 'general', topic: 'impostor', content: 'hi' });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({
      result: 'error',
      msg: 'Account is not associated with this subdomain',
    });
  });

  it('still send their notices, shown with their name', async () => {
    const created = await org.as(admin).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'announced' }]),
      announce: 'true',
    });
    expect(created.body.result).toBe('success');
    const res = await org
      .as(admin)
      .get('/messages')
      .query({
        anchor: 'newest',
        num_before: 5,
        num_after: 0,
        narrow: JSON.stringify([{ operator: 'sender', operand: bot.id }]),
      });
    const [notice] = res.body.messages as Record<string, unknown>[];
    expect(notice).toMatchObject({
      sender_id: bot.id,
      sender_full_name: 'Notification Bot',
      sender_email: bot.email,
    });
    expect(String(notice.content)).toContain('announced');
  });

  it('the migration makes each existing organization notification bot a system bot', async () => {
    const other = await makeRealm(t);
    const older = (await findNotificationBot(t.db, other.realm.id))!;
    await t.db.user.update({ where: { id: older.id }, data: { isSystemBot: false } });
    const sql = readFileSync(
      path.join(__dirname, '../../../prisma/migrations/20261123120000_system_bots/migration.sql'),
      'utf8',
    );
    await t.db.$executeRawUnsafe(sql.slice(sql.indexOf('UPDATE')));
    const after = await t.db.user.findUniqueOrThrow({ where: { id: older.id } });
    expect(after.isSystemBot).toBe(true);
    expect(await t.db.user.count({ where: { isSystemBot: true, realmId: other.realm.id } })).toBe(
      1,
    );
  });
});
