import request from 'supertest';
import { makeRealm, makeUser, type TestRealm, type TestUser } from '../../test/factories';
import { cliEnv, runCli } from '../../test/cli';
import { basicAuth, startTestContext, type TestContext } from '../../test/harness';
import { startSmtpReceiver, type SmtpReceiver } from '../../test/worker-factories';

/**
 * The commands operators reach for, run as an operator runs them (a child process, `--json`),
 * each checked from a client's side through the API.
 */

let t: TestContext;
let org: TestRealm;
let member: TestUser;
let smtp: SmtpReceiver;

beforeAll(async () => {
  t = await startTestContext();
  smtp = await startSmtpReceiver();
  org = await makeRealm(t, { stringId: 'ops', name: 'Ops Inc' });
  member = await makeUser(t, org.realm, { fullName: 'Mia Member' });
});
afterAll(async () => {
  await smtp.close();
  await t.close();
});

const cli = (args: string[], options: { input?: string; env?: Record<string, string> } = {}) =>
  runCli(args, { ...cliEnv(t.config), ...options.env }, options.input);

const me = (email: string, apiKey: string) =>
  request(t.app)
    .get('/api/v1/users/me')
    .set('Host', org.host)
    .set('Authorization', basicAuth(email, apiKey));

it('an unknown command says so, prints the usage and exits with status 2', async () => {
  const run = await cli(['deactivate-usr', '--json']);
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/^unknown command deactivate-usr\n/);
  expect(run.stderr).toContain('usage: npm run --silent cli -- <command>');
  expect(run.stderr).toContain('  deactivate-user --realm S --user EMAIL|ID');
  const help = await cli(['help']);
  expect(help.code).toBe(0);
  expect(help.stderr).not.toContain('unknown command');
}, 30000);

it('lists organizations and their users', async () => {
  const realms = await cli(['list-realms', '--json']);
  expect(realms.code).toBe(0);
  expect(realms.json.realms).toContainEqual(
    expect.objectContaining({
      id: org.realm.id,
      subdomain: 'ops',
      name: 'Ops Inc',
      url: 'http://ops.chat.test',
      deactivated: false,
      active_humans: 2,
    }),
  );

  const users = await cli(['list-users', '--realm', 'ops', '--json']);
  expect(users.json).toEqual({
    realm: 'ops',
    users: [
      expect.objectContaining({ id: org.owner.user.id, role: 100, role_name: 'owner' }),
      expect.objectContaining({
        id: member.user.id,
        email: member.email,
        full_name: 'Mia Member',
        role: 400,
        role_name: 'member',
        is_active: true,
        is_bot: false,
      }),
    ],
  });
  const human = await cli(['list-users', '--realm', 'ops']);
  expect(human.stdout).toContain('"full_name":"Mia Member"');
}, 30000);

it('deactivates and reactivates a user, whose API key stops and starts working', async () => {
  const off = await cli(['deactivate-user', '--realm', 'ops', '--user', member.email, '--json']);
  expect(off.json).toMatchObject({ id: member.user.id, is_active: false });
  expect((await me(member.email, member.apiKey)).body).toMatchObject({
    code: 'USER_DEACTIVATED',
  });
  const all = await cli(['list-users', '--realm', 'ops', '--all', '--json']);
  expect(all.json.users).toContainEqual(
    expect.objectContaining({ id: member.user.id, is_active: false }),
  );
  const again = await cli(['deactivate-user', '--realm', 'ops', '--user', member.email, '--json']);
  expect(again.code).toBe(1);
  expect(again.json).toEqual({ error: 'User is already deactivated' });

  const on = await cli(['reactivate-user', '--realm', 'ops', '--user', String(member.user.id)]);
  expect(on.code).toBe(0);
  expect(on.stdout).toContain('is_active: true');
  expect((await me(member.email, member.apiKey)).body).toMatchObject({
    result: 'success',
    user_id: member.user.id,
  });

  // The organization keeps its only owner.
  const owner = await cli(['deactivate-user', '--realm', 'ops', '--user', org.owner.email]);
  expect(owner.code).toBe(1);
  expect(owner.stderr).toContain('Cannot deactivate the only organization owner');
}, 60000);

it('changes an email at once; a clash or a bad address changes nothing', async () => {
  const changed = await cli([
    'change-email',
    '--realm',
    'ops',
    '--user',
    member.email,
    '--new-email',
    'Mia.New@Example.com',
    '--json',
  ]);
  expect(changed.json).toMatchObject({
    id: member.user.id,
    email: 'mia.new@example.com',
    old_email: member.email,
  });
  expect((await me('mia.new@example.com', member.apiKey)).body).toMatchObject({
    email: 'mia.new@example.com',
    delivery_email: 'mia.new@example.com',
  });

  const clash = await cli([
    'change-email',
    '--realm',
    'ops',
    '--user',
    'mia.new@example.com',
    '--new-email',
    org.owner.email,
    '--json',
  ]);
  expect(clash.code).toBe(1);
  expect(clash.json.error).toBe(`Email '${org.owner.email}' already in use`);
  const bad = await cli([
    'change-email',
    '--realm',
    'ops',
    '--user',
    'mia.new@example.com',
    '--new-email',
    'not an address',
  ]);
  expect(bad.code).toBe(1);
  expect((await t.db.user.findUniqueOrThrow({ where: { id: member.user.id } })).email).toBe(
    'mia.new@example.com',
  );
}, 60000);

it('sets a password from a flag or from standard input; fetch_api_key then accepts it', async () => {
  const fetchKey = (password: string) =>
    request(t.app)
      .post('/api/v1/fetch_api_key')
      .set('Host', org.host)
      .type('form')
      .send({ username: 'mia.new@example.com', password });

  const set = await cli(
    [
      'set-password',
      '--realm',
      'ops',
      '--user',
      'mia.new@example.com',
      '--password-stdin',
      '--json',
    ],
    { input: 'correct horse battery\n' },
  );
  expect(set.json).toMatchObject({ id: member.user.id, password_set: true });
  expect((await fetchKey('correct horse battery')).body).toMatchObject({
    result: 'success',
    api_key: member.apiKey,
  });

  const flag = await cli([
    'set-password',
    '--realm',
    'ops',
    '--user',
    String(member.user.id),
    '--password',
    'another long one',
  ]);
  expect(flag.code).toBe(0);
  expect((await fetchKey('correct horse battery')).status).toBe(401);
  expect((await fetchKey('another long one')).status).toBe(200);

  const weak = await cli([
    'set-password',
    '--realm',
    'ops',
    '--user',
    String(member.user.id),
    '--password',
    'abc',
  ]);
  expect(weak.code).toBe(1);
  expect(weak.stderr).toContain('The password is too weak.');
  const both = await cli([
    'set-password',
    '--realm',
    'ops',
    '--user',
    String(member.user.id),
    '--password',
    'abcdefgh',
    '--password-stdin',
  ]);
  expect(both.code).toBe(2);
}, 60000);

it('renames, deactivates and reactivates an organization', async () => {
  const renamed = await cli(['rename-realm', '--realm', 'ops', '--name', 'Ops Group', '--json']);
  expect(renamed.json).toMatchObject({ id: org.realm.id, name: 'Ops Group', deactivated: false });
  const server = await request(t.app).get('/api/v1/server_settings').set('Host', org.host);
  expect(server.body.realm_name).toBe('Ops Group');
  const tooLong = await cli(['rename-realm', '--realm', 'ops', '--name', 'x'.repeat(41)]);
  expect(tooLong.code).toBe(2);

  const off = await cli(['deactivate-realm', '--realm', 'ops', '--json']);
  expect(off.json).toMatchObject({ id: org.realm.id, deactivated: true });
  expect((await me(org.owner.email, org.owner.apiKey)).body).toMatchObject({
    code: 'REALM_DEACTIVATED',
  });
  const on = await cli(['reactivate-realm', '--realm', 'ops', '--json']);
  expect(on.json).toMatchObject({ deactivated: false });
  expect((await me(org.owner.email, org.owner.apiKey)).body).toMatchObject({
    result: 'success',
  });
}, 60000);

it('sends a test email through the configured SMTP server, and refuses without one', async () => {
  const sent = await cli(['send-test-email', '--to', 'admin@example.org', '--json'], {
    env: { SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port), EMAIL_FROM: 'chat@example.org' },
  });
  expect(sent.json).toEqual({
    sent_to: 'admin@example.org',
    from: 'chat@example.org',
    smtp: `127.0.0.1:${smtp.port}`,
  });
  expect(smtp.mails).toHaveLength(1);
  expect(smtp.mails[0]).toMatchObject({ from: 'chat@example.org', to: ['admin@example.org'] });
  expect(smtp.mails[0].raw).toContain('Subject: Test email from chat.test');

  const none = await cli(['send-test-email', '--to', 'admin@example.org', '--json'], {
    env: { SMTP_HOST: '' },
  });
  expect(none.code).toBe(2);
  expect(none.json.error).toContain('SMTP_HOST is not set');
}, 30000);
