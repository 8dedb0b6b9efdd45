import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { startApiServer } from '../api/server';
import { cliEnv, cliJson } from '../../test/cli';
import { makeRealm, makeUser } from '../../test/factories';
import { startTestContext, type TestContext } from '../../test/harness';

const run = promisify(execFile);

let t: TestContext;
let server: Server;
let port: number;

beforeAll(async () => {
  t = await startTestContext();
  server = await startApiServer(t, 0);
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

/** Runs the operator CLI as an operator would, against this test file's database. */
const cli = (...args: string[]) => cliJson(args, cliEnv(t.config));

async function curlMe(
  email: string,
  apiKey: string,
  host: string,
): Promise<Record<string, unknown>> {
  const { stdout } = await run('curl', [
    '-sS',
    '-u',
    `${email}:${apiKey}`,
    '-H',
    `Host: ${host}`,
    `http://127.0.0.1:${port}/api/v1/users/me`,
  ]);
  return JSON.parse(stdout);
}

describe('operator CLI', () => {
  it('creates an organization whose owner can call GET /users/me with curl and Basic auth', async () => {
    const created = await cli(
      'create-realm',
      '--subdomain',
      'acme',
      '--name',
      'Acme',
      '--owner-email',
      'boss@acme.example',
      '--owner-name',
      'Bea Boss',
      '--password',
      'hunter22hunter',
    );
    expect(created).toMatchObject({ email: 'boss@acme.example', realm: { subdomain: 'acme' } });
    expect(created.api_key).toMatch(/^[A-Za-z0-9]{32}$/);
    const me = await curlMe('boss@acme.example', created.api_key as string, 'acme.chat.test');
    expect(me).toMatchObject({
      result: 'success',
      user_id: created.id,
      role: 100,
      full_name: 'Bea Boss',
    });
  }, 60000);

  it('creates users and bots, changes roles, rotates keys and prints a zuliprc', async () => {
    const user = await cli(
      'create-user',
      '--realm',
      'acme',
      '--email',
      'mo@acme.example',
      '--full-name',
      'Mo',
      '--role',
      'moderator',
    );
    expect(user).toMatchObject({ email: 'mo@acme.example', role: 300 });
    expect(await curlMe('mo@acme.example', user.api_key as string, 'acme.chat.test')).toMatchObject(
      { role: 300 },
    );

    const promoted = await cli(
      'change-role',
      '--realm',
      'acme',
      '--user',
      'mo@acme.example',
      '--role',
      'admin',
    );
    expect(promoted).toMatchObject({ id: user.id, role: 200, api_key: user.api_key });

    const rotated = await cli('regenerate-api-key', '--realm', 'acme', '--user', String(user.id));
    expect(rotated.api_key).not.toBe(user.api_key);
    expect(await curlMe('mo@acme.example', user.api_key as string, 'acme.chat.test')).toMatchObject(
      {
        code: 'INVALID_API_KEY',
      },
    );

    const bot = await cli(
      'create-bot',
      '--realm',
      'acme',
      '--owner',
      'mo@acme.example',
      '--full-name',
      'Helper',
      '--short-name',
      'helper',
    );
    expect(bot).toMatchObject({ email: 'helper-bot@acme.chat.test', bot_type: 1 });
    const rc = await cli('zuliprc', '--realm', 'acme', '--user', 'helper-bot@acme.chat.test');
    expect(rc.zuliprc).toBe(
      `[api]\nemail=helper-bot@acme.chat.test\nkey=${String(bot.api_key)}\nsite=http://acme.chat.test\n`,
    );
  }, 120000);

  it('refuses to demote the only owner and reports usage errors', async () => {
    await expect(
      cli('change-role', '--realm', 'acme', '--user', 'boss@acme.example', '--role', 'member'),
    ).rejects.toMatchObject({
      stdout: expect.stringContaining('only organization owner'),
    });
    await expect(cli('create-user', '--realm', 'acme')).rejects.toMatchObject({ code: 2 });
    await expect(
      cli('create-user', '--realm', 'nowhere', '--email', 'a@b.c', '--full-name', 'A'),
    ).rejects.toMatchObject({
      stdout: expect.stringContaining("No organization with subdomain 'nowhere'"),
    });
  }, 60000);

  it('deletes unclaimed uploads older than --days and prints the count', async () => {
    const { realm } = await makeRealm(t);
    const owner = await makeUser(t, realm);
    const stale = await t.db.attachment.create({
      data: {
        realmId: realm.id,
        ownerId: owner.user.id,
        pathId: `${realm.id}/cli/old.txt`,
        fileName: 'old.txt',
        size: 3,
        createTime: new Date(Date.now() - 30 * 24 * 60 * 60 * 1000),
      },
    });
    expect(await cli('delete-unclaimed-attachments', '--days', '40')).toEqual({
      older_than_days: 40,
      deleted: 0,
    });
    expect(await cli('delete-unclaimed-attachments')).toEqual({
      older_than_days: 21,
      deleted: 1,
    });
    expect(await t.db.attachment.findUnique({ where: { id: stale.id } })).toBeNull();
    await expect(cli('delete-unclaimed-attachments', '--days', 'soon')).rejects.toMatchObject({
      code: 2,
    });
  }, 60000);

  it('seeds a demo organization whose users can authenticate', async () => {
    const seeded = await cli('seed-demo', '--subdomain', 'demo');
    const users = seeded.users as { email: string; api_key: string; role: number }[];
    expect(users.map((u) => u.role).sort()).toEqual([100, 200, 300, 400, 400, 600]);
    for (const u of users.slice(0, 2)) {
      expect(await curlMe(u.email, u.api_key, 'demo.chat.test')).toMatchObject({
        result: 'success',
        email: u.email,
      });
    }
    expect((seeded.channels as { name: string }[]).map((c) => c.name)).toEqual([
      'design',
      'engineering',
      'leadership',
    ]);
  }, 60000);
});
