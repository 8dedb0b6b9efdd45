import { spawn } from 'node:child_process';
import path from 'node:path';
import request from 'supertest';
import { cliEnv, cliJson, runCli } from '../../test/cli';
import { basicAuth, startTestContext, type TestContext } from '../../test/harness';

/**
 * A server reached at an IP address (EXTERNAL_HOST=127.0.0.1:9991): the operator CLI creates the
 * organization and a bot, and POST /bots works, with bot emails on FAKE_EMAIL_DOMAIN.
 */
const ROOT = path.resolve(__dirname, '../..');

let t: TestContext;

beforeAll(async () => {
  t = await startTestContext({ EXTERNAL_HOST: '127.0.0.1:9991' });
});
afterAll(async () => {
  await t.close();
});

const cli = (env: Record<string, string>, ...args: string[]) =>
  cliJson<Record<string, string>>(args, { ...cliEnv(t.config), ...env });

// Several CLI processes in a row, each loading the build: slow on a busy machine.
jest.setTimeout(180_000);

it('creates the organization, its notification bot and bots on the fake email domain', async () => {
  const owner = await cli(
    {},
    'create-realm',
    '--subdomain',
    '',
    '--name',
    'At an IP',
    '--owner-email',
    'boss@acme.example',
    '--owner-name',
    'Bea Boss',
  );
  expect(owner.email).toBe('boss@acme.example');
  const bots = await t.db.user.findMany({ where: { isBot: true }, select: { email: true } });
  expect(bots.map((b) => b.email)).toEqual(['notification-bot@chat.invalid']);

  // FAKE_EMAIL_DOMAIN is configurable.
  const helper = await cli(
    { FAKE_EMAIL_DOMAIN: 'bots.example.org' },
    'create-bot',
    '--realm',
    'root',
    '--owner',
    'boss@acme.example',
    '--full-name',
    'Helper',
    '--short-name',
    'helper',
  );
  expect(helper.email).toBe('helper-bot@bots.example.org');

  const res = await request(t.app)
    .post('/api/v1/bots')
    .set('Host', '127.0.0.1:9991')
    .set('Authorization', basicAuth(owner.email, owner.api_key))
    .type('form')
    .send({ full_name: 'Poster', short_name: 'poster' });
  expect(res.status).toBe(200);
  const poster = await t.db.user.findUniqueOrThrow({ where: { id: res.body.user_id } });
  expect(poster.email).toBe('poster-bot@chat.invalid');
});

it('refuses an organization on a subdomain of an IP address, with a clear error', async () => {
  const refused = await runCli(
    [
      'create-realm',
      '--subdomain',
      'zed',
      '--name',
      'Zed',
      '--owner-email',
      'zed@acme.example',
      '--owner-name',
      'Zed',
      '--json',
    ],
    { ...cliEnv(t.config), EXTERNAL_HOST: '192.168.1.10:9991' },
  );
  expect(refused.code).toBe(1);
  expect(refused.json.error).toBe(
    'EXTERNAL_HOST is the IP address 192.168.1.10:9991, which has no subdomains: an organization ' +
      'at zed.192.168.1.10:9991 could not be reached. Set EXTERNAL_HOST to a DNS name, or create ' +
      'the root organization (an empty subdomain).',
  );
  expect(await t.db.realm.findUnique({ where: { stringId: 'zed' } })).toBeNull();
}, 30000);

it('the API process warns at boot about organizations on subdomains under an IP address', async () => {
  // Made while EXTERNAL_HOST was a DNS name.
  await t.db.realm.create({ data: { stringId: 'legacy', name: 'Legacy' } });
  const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['apps/api/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: t.config.databaseUrl,
      REDIS_URL: t.config.redisUrl,
      REDIS_PREFIX: t.config.redisPrefix,
      EXTERNAL_HOST: '[::1]:9991',
      API_PORT: '0',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    },
  });
  let output = '';
  const listening = new Promise<void>((resolve) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('api listening')) resolve();
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
  });
  try {
    await listening;
  } finally {
    child.kill('SIGTERM');
  }
  const warning = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find(
      (line) => line.message === 'organizations on subdomains cannot be reached at an IP address',
    );
  expect(warning).toMatchObject({
    level: 'warn',
    external_host: '[::1]:9991',
    subdomains: ['legacy'],
  });
}, 60000);
