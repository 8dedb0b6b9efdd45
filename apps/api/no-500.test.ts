import bcrypt from 'bcrypt';
import request from 'supertest';
import { createApiApp } from './app';
import { loadConfig } from '../../libs/config/load-config';
import { createDb } from '../../libs/db/client';
import { dummyPasswordHash } from '../../libs/domain/auth/fetch-api-key';
import { createLogger } from '../../libs/log/create-logger';
import { connectRedis } from '../../libs/redis/connect';
import { databaseUrl } from '../../test/databases';
import { TEST_REDIS_URL } from '../../test/harness';
import { type Organization, organization } from '../../test/organization';

/** Issue 23, point 5: a store problem or malformed input is never a 500. */
let org: Organization;

beforeAll(async () => {
  org = await organization();
});
afterAll(() => org.close());

describe('malformed multipart bodies', () => {
  const bodies = {
    truncated: '--x\r\nbroken',
    'cut inside a part':
      '--x\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nab',
    'a broken part header': `--x\r\n${'h'.repeat(100)}\r\n\r\nvalue\r\n--x--\r\n`,
  };
  for (const [what, body] of Object.entries(bodies)) {
    for (const path of ['/user_uploads', '/users/me/avatar', '/realm/emoji/green_tick']) {
      it(`answer 400 in Zulip's envelope: ${what}, POST ${path}`, async () => {
        const res = await request(org.t.app)
          .post(`/api/v1${path}`)
          .set('Host', org.host)
          .set('Authorization', org.owner.auth)
          .set('Content-Type', 'multipart/form-data; boundary=x')
          .send(body);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          result: 'error',
          code: 'BAD_REQUEST',
          msg: 'Malformed multipart body',
        });
      });
    }
  }

  it('answer 400 to a multipart body without a boundary', async () => {
    const res = await request(org.t.app)
      .post('/api/v1/user_uploads')
      .set('Host', org.host)
      .set('Authorization', org.owner.auth)
      .set('Content-Type', 'multipart/form-data')
      .send('--x\r\n');
    expect(res.status).toBe(400);
    expect(res.body.result).toBe('error');
  });
});

describe('X-Content-Type-Options', () => {
  it('is nosniff on JSON answers, successes and errors alike', async () => {
    for (const [path, status] of [
      ['/api/v1/server_settings', 200],
      ['/api/v1/users/me', 401],
      ['/api/v1/no/such/route', 404],
    ] as const) {
      const res = await request(org.t.app).get(path).set('Host', org.host);
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});

describe('a DATABASE_URL naming a database that does not exist', () => {
  it('answers 503 SERVER_NOT_READY, not 500', async () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl('chat_test_no_such_database'),
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: 'test:no-such-database:',
      EXTERNAL_HOST: 'chat.test',
      LOG_LEVEL: 'error',
    });
    const db = createDb(config.databaseUrl, { maxConnections: 1 });
    const redis = connectRedis(config);
    const log = createLogger({ level: 'error', format: 'json' });
    try {
      const app = createApiApp({ db, redis, config, log });
      for (const path of ['/api/v1/server_settings', '/api/v1/users/me']) {
        const res = await request(app)
          .get(path)
          .set('Host', 'chat.test')
          .set('Authorization', org.owner.auth);
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ result: 'error', code: 'SERVER_NOT_READY' });
      }
      const ready = await request(app).get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.postgres).toMatch(/does not exist/);
    } finally {
      await db.$disconnect();
      redis.disconnect();
    }
  });
});

describe('password checks', () => {
  it('compare a missing account against a hash of the configured cost', async () => {
    for (const rounds of [4, 10]) {
      expect(bcrypt.getRounds(await dummyPasswordHash(rounds))).toBe(rounds);
    }
    expect(await dummyPasswordHash(10)).toBe(await dummyPasswordHash(10));
  });

  it('refuse a missing account and a wrong password alike', async () => {
    for (const username of [org.owner.email, 'nobody@example.com']) {
      const res = await request(org.t.app)
        .post('/api/v1/fetch_api_key')
        .set('Host', org.host)
        .type('form')
        .send({ username, password: 'wrong' });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('AUTHENTICATION_FAILED');
    }
  });
});
