import request from 'supertest';
import { makeRealm, makeUser, type TestRealm, type TestUser } from '../../test/factories';
import { cliEnv, runCli } from '../../test/cli';
import { startTestContext, type TestContext } from '../../test/harness';
import { Role } from '../../libs/domain/users/roles';
import { QueueName } from '../../libs/jobs/job-catalogue';
import { jobQueue } from '../../libs/jobs/queues';
import { UsageError } from './args';
import { generateInviteLinkCommand } from './commands/invites';
import { purgeQueueCommand, queuesCommand } from './commands/jobs';
import {
  changeSubdomainCommand,
  deactivateRealmCommand,
  deleteRealmCommand,
} from './commands/realms';
import { showAdminsCommand } from './commands/users';

/**
 * Issue 46: the operator commands Zulip administrators use daily that were missing, each checked
 * from outside: delete an organization, move it to another subdomain, make an invitation link,
 * list its administrators, inspect and purge a job queue (the commands' functions, as main.ts
 * runs them), and check that the installation can serve (a child process, for its exit codes).
 */
let t: TestContext;

beforeAll(async () => {
  t = await startTestContext();
});
afterAll(async () => {
  await t.close();
});

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli([...args, '--json'], { ...cliEnv(t.config), ...env });

/** A command's answer, or the message it failed with (main.ts prints it as `{"error": ...}`). */
async function run(
  command: (ctx: TestContext, argv: string[]) => Promise<Record<string, unknown>>,
  argv: string[],
): Promise<{ ok: boolean; json: Record<string, unknown>; usage: boolean }> {
  try {
    return { ok: true, json: await command(t, argv), usage: false };
  } catch (err) {
    return { ok: false, json: { error: (err as Error).message }, usage: err instanceof UsageError };
  }
}

const me = (host: string, who: TestUser) =>
  request(t.app).get('/api/v1/users/me').set('Host', host).set('Authorization', who.auth);

describe('delete-realm', () => {
  it('deletes a deactivated organization after the subdomain is named again', async () => {
    const doomed: TestRealm = await makeRealm(t, { stringId: 'doomed' });
    const kept: TestRealm = await makeRealm(t, { stringId: 'kept' });
    const send = await request(t.app)
      .post('/api/v1/messages')
      .set('Host', doomed.host)
      .set('Authorization', doomed.owner.auth)
      .type('form')
      .send({ type: 'stream', to: 'general', topic: 'bye', content: 'last words' });
    expect(send.status).toBe(200);

    const active = await run(deleteRealmCommand, ['--realm', 'doomed', '--confirm', 'doomed']);
    expect(active).toMatchObject({
      ok: false,
      json: { error: 'Deactivate the organization before deleting it' },
    });
    expect((await run(deactivateRealmCommand, ['--realm', 'doomed'])).ok).toBe(true);
    const wrong = await run(deleteRealmCommand, ['--realm', 'doomed', '--confirm', 'kept']);
    expect(wrong.ok).toBe(false);
    expect(await t.db.realm.count({ where: { id: doomed.realm.id } })).toBe(1);

    const done = await run(deleteRealmCommand, ['--realm', 'doomed', '--confirm', 'doomed']);
    expect(done.json).toMatchObject({
      subdomain: 'doomed',
      deleted: { users: 1, messages: expect.any(Number), uploads: 0 },
    });
    expect((done.json.deleted as { messages: number }).messages).toBeGreaterThanOrEqual(1);
    expect(await t.db.realm.count({ where: { id: doomed.realm.id } })).toBe(0);
    expect(await t.db.user.count({ where: { realmId: doomed.realm.id } })).toBe(0);
    expect(await t.db.message.count({ where: { realmId: doomed.realm.id } })).toBe(0);
    expect((await me(doomed.host, doomed.owner)).status).not.toBe(200);
    expect((await me(kept.host, kept.owner)).status).toBe(200);
  }, 120000);
});

describe('change-subdomain', () => {
  it('moves the organization: its users sign in at the new host, not the old', async () => {
    const org = await makeRealm(t, { stringId: 'oldname' });
    await makeRealm(t, { stringId: 'taken' });
    const move = (to: string) =>
      run(changeSubdomainCommand, ['--realm', 'oldname', '--new-subdomain', to]);
    expect(await move('taken')).toMatchObject({
      ok: false,
      json: { error: 'Subdomain already in use. Please choose a different one.' },
    });
    expect((await move('-x-')).ok).toBe(false);

    const moved = await move('NewName');
    expect(moved.json).toMatchObject({ subdomain: 'newname', url: 'http://newname.chat.test' });
    expect((await me('newname.chat.test', org.owner)).status).toBe(200);
    expect((await me('oldname.chat.test', org.owner)).status).not.toBe(200);
  }, 120000);
});

describe('generate-invite-link and show-admins', () => {
  let org: TestRealm;
  let admin: TestUser;
  let member: TestUser;
  beforeAll(async () => {
    org = await makeRealm(t, { stringId: 'inviting' });
    admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR, fullName: 'Ada Admin' });
    member = await makeUser(t, org.realm, { fullName: 'Max Member' });
  });

  it('makes a reusable link in an administrator name, and refuses one who may not invite', async () => {
    const made = await run(generateInviteLinkCommand, [
      '--realm',
      'inviting',
      '--referred-by',
      admin.user.email,
      '--expires-in-minutes',
      '60',
    ]);
    expect(made.ok).toBe(true);
    const link = made.json.invite_link as string;
    expect(link).toMatch(/^http:\/\/inviting\.chat\.test\/join\/[a-z0-9]+\/$/);
    const key = link.split('/').at(-2);
    const invite = await t.db.multiuseInvite.findFirstOrThrow({ where: { confirmationKey: key } });
    expect(invite).toMatchObject({
      realmId: org.realm.id,
      referredById: admin.user.id,
      invitedAs: Role.MEMBER,
    });
    expect(invite.expiresAt?.getTime()).toBeGreaterThan(Date.now() + 59 * 60_000);

    const refused = await run(generateInviteLinkCommand, [
      '--realm',
      'inviting',
      '--referred-by',
      member.user.email,
    ]);
    expect(refused).toMatchObject({ ok: false, json: { error: 'Insufficient permission' } });
  }, 120000);

  it('lists the active owners and administrators, owners first', async () => {
    const admins = await run(showAdminsCommand, ['--realm', 'inviting']);
    expect(admins.json.administrators).toEqual([
      expect.objectContaining({ id: org.owner.user.id, role: Role.OWNER, role_name: 'owner' }),
      expect.objectContaining({
        id: admin.user.id,
        full_name: 'Ada Admin',
        role: Role.ADMINISTRATOR,
      }),
    ]);
  }, 60000);
});

describe('queues and purge-queue', () => {
  it('counts the jobs of each queue and removes those in one state', async () => {
    const maintenance = jobQueue(t, QueueName.MAINTENANCE);
    await maintenance.add('realm-export', { exportId: 1 }, { delay: 3_600_000 });
    await maintenance.add('realm-export', { exportId: 2 }, { delay: 3_600_000 });
    const all = await run(queuesCommand, []);
    expect(Object.keys(all.json.queues as object)).toEqual(Object.values(QueueName));
    const one = await run(queuesCommand, ['--queue', 'maintenance']);
    expect((one.json.queues as Record<string, Record<string, number>>).maintenance).toMatchObject({
      delayed: 2,
      failed: 0,
    });
    expect(one.json.failed).toEqual([]);
    expect((await run(queuesCommand, ['--queue', 'nope'])).usage).toBe(true);

    const purge = (state: string) =>
      run(purgeQueueCommand, ['--queue', 'maintenance', '--state', state]);
    expect((await purge('delayed')).json).toEqual({
      queue: 'maintenance',
      state: 'delayed',
      removed: 2,
    });
    expect(await maintenance.getDelayedCount()).toBe(0);
    // Running jobs are never cut off.
    expect((await purge('active')).usage).toBe(true);
  }, 120000);
});

describe('check', () => {
  it('passes when every store answers, fails naming the one that does not', async () => {
    const ok = await cli(['check']);
    expect({ code: ok.code, err: ok.stderr }).toMatchObject({ code: 0 });
    expect(ok.json).toMatchObject({
      config: { ok: true },
      postgresql: { ok: true },
      redis: { ok: true },
      storage: { ok: true },
    });
    const noRedis = await cli(['check', '--timeout-seconds', '30'], {
      REDIS_URL: 'redis://127.0.0.1:1/0',
    });
    expect(noRedis.code).toBe(1);
    expect(noRedis.json.error).toMatch(/(^|; )redis: /);
    const badConfig = await cli(['check'], { EVENT_QUEUE_IDLE_SECONDS: 'soon' });
    expect(badConfig.code).toBe(78);
    expect(badConfig.stderr).toContain('EVENT_QUEUE_IDLE_SECONDS');
  }, 300000);
});
