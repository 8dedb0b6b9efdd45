import request from 'supertest';
import type { Stream } from '../../../generated/prisma/client';
import { makeBot } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from '../../../libs/http/body-limits';
import { type Organization, organization } from '../../../test/organization';

/** Issue 11: limits that hold under abuse, each answered with Zulip's error envelope. */

let t: TestContext;
let org: Organization;
let channel: Stream;

beforeAll(async () => {
  org = await organization({ channels: { channel: ['owner'] } });
  ({ t } = org);
  ({ channel } = org.channels);
});
afterAll(() => org.close());

const getMessages = (params: Record<string, string | number>) =>
  org.as(org.owner).get('/messages', {
    anchor: 'newest',
    num_before: 10,
    num_after: 0,
    ...params,
  });

const error = (msg: string) => ({ result: 'error', code: 'BAD_REQUEST', msg });
const messageCount = () => t.db.message.count({ where: { realmId: org.realm.id } });
const deep = (depth: number): unknown => (depth <= 1 ? [] : [deep(depth - 1)]);

describe('GET /messages', () => {
  it('caps num_before + num_after at 5000 (Zulip)', async () => {
    const res = await getMessages({ num_before: 2500, num_after: 2501 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(error('Too many messages requested (maximum 5000).'));
    expect((await getMessages({ num_before: 2500, num_after: 2500 })).status).toBe(200);
    const huge = await getMessages({ num_before: '1e308' });
    expect(huge.body).toEqual(error('num_before is not an integer'));
  });

  it('caps the number of narrow terms', async () => {
    const term = { operator: 'is', operand: 'starred' };
    const ok = await getMessages({ narrow: JSON.stringify(Array(50).fill(term)) });
    expect(ok.status).toBe(200);
    const res = await getMessages({ narrow: JSON.stringify(Array(51).fill(term)) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(error('narrow is too long (limit: 50 items)'));
  });

  it('caps the length of a search string and of every other operand', async () => {
    const search = (text: string) =>
      getMessages({ narrow: JSON.stringify([{ operator: 'search', operand: text }]) });
    expect((await search('word '.repeat(200))).status).toBe(200);
    const res = await search('w'.repeat(1001));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(error('narrow[0]["operand"] is too long (limit: 1000 characters)'));
    const legacy = await getMessages({ narrow: JSON.stringify([['search', 'w'.repeat(1001)]]) });
    expect(legacy.body).toEqual(error('narrow[0][1] is too long (limit: 1000 characters)'));
    const ids = await getMessages({
      narrow: JSON.stringify([{ operator: 'dm', operand: Array(1001).fill(1) }]),
    });
    expect(ids.body).toEqual(error('narrow[0]["operand"] is too long (limit: 1000 items)'));
  });

  it('refuses operands nested where none may be', async () => {
    const res = await getMessages({
      narrow: JSON.stringify([{ operator: 'dm', operand: [[org.owner.user.id]] }]),
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
  });
});

describe('JSON depth', () => {
  it('refuses a JSON parameter nested deeper than the limit as invalid JSON', async () => {
    const res = await getMessages({ narrow: JSON.stringify(deep(MAX_JSON_DEPTH + 1)) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(error('Argument "narrow" is not valid JSON.'));
    const hostile = await getMessages({ narrow: `${'['.repeat(2000)}${']'.repeat(2000)}` });
    expect(hostile.body).toEqual(error('Argument "narrow" is not valid JSON.'));
  });

  it('refuses a deep value in a JSON body the same way, sending nothing', async () => {
    const before = await messageCount();
    const res = await request(t.app)
      .post('/api/v1/messages')
      .set('Host', org.host)
      .set('Authorization', org.owner.auth)
      .send({ type: 'stream', to: deep(100), topic: 'deep', content: 'x' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(error('Argument "to" is not valid JSON.'));
    expect(await messageCount()).toBe(before);
  });
});

describe('body size', () => {
  it('refuses a form body over 1 MiB with 413 in the envelope, sending nothing', async () => {
    const before = await messageCount();
    const res = await org.as(org.owner).post('/messages', {
      type: 'stream',
      to: channel.id,
      topic: 'big',
      content: 'x'.repeat(MAX_BODY_BYTES),
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Request body too large',
    });
    expect(await messageCount()).toBe(before);
  });

  it('refuses an over-long multipart field instead of cutting it short', async () => {
    const before = await messageCount();
    const res = await org
      .as(org.owner)
      .post('/messages')
      .field('type', 'stream')
      .field('to', String(channel.id))
      .field('topic', 'big')
      .field('content', 'x'.repeat(MAX_BODY_BYTES + 1));
    expect(res.status).toBe(413);
    expect(res.body.msg).toBe('Request body too large');
    expect(await messageCount()).toBe(before);
  });

  it('lets /bot_storage, and only it, take a larger body (Zulip stores 10,000,000 characters)', async () => {
    const bot = await makeBot(t, org.realm, org.owner.user);
    const value = 'v'.repeat(2 * MAX_BODY_BYTES);
    const stored = await org.as(bot).put('/bot_storage', {
      storage: JSON.stringify({ big: value }),
    });
    expect(stored.body).toEqual({ result: 'success', msg: '' });
    const elsewhere = await org.as(bot).post('/users/me/alert_words', {
      alert_words: JSON.stringify([value]),
    });
    expect(elsewhere.status).toBe(413);
  });

  it('refuses a form with thousands of parameters', async () => {
    const form: Record<string, string> = { type: 'stream', to: String(channel.id) };
    for (let i = 0; i < 2000; i++) form[`p${i}`] = '1';
    const res = await org.as(org.owner).post('/messages', form);
    expect(res.status).toBe(413);
    expect(res.body.result).toBe('error');
  });
});

describe('alert words', () => {
  it('keeps at most 1000 per user: every message to them is matched against all', async () => {
    const words = (from: number, n: number) =>
      JSON.stringify(Array.from({ length: n }, (_, i) => `word${from + i}`));
    const add = (list: string) =>
      org.as(org.owner).post('/users/me/alert_words', { alert_words: list });
    expect((await add(words(0, 999))).status).toBe(200);
    const over = await add(words(999, 2));
    expect(over.status).toBe(400);
    expect(over.body).toEqual(error('Too many alert words (maximum 1000).'));
    expect(await t.db.alertWord.count({ where: { userId: org.owner.user.id } })).toBe(999);
    expect((await add(words(999, 1))).body.alert_words).toHaveLength(1000);
  });
});

describe('POST /register', () => {
  const register = (narrow: unknown) =>
    org.as(org.owner).post('/register', {
      event_types: JSON.stringify(['message']),
      narrow: JSON.stringify(narrow),
    });

  it('bounds the narrow a queue is registered with, as GET /messages does', async () => {
    const term = ['is', 'starred'];
    expect((await register(Array(50).fill(term))).status).toBe(200);
    const many = await register(Array(51).fill(term));
    expect(many.status).toBe(400);
    expect(many.body).toEqual(error('narrow is too long (limit: 50 items)'));
    const long = await register([{ operator: 'search', operand: 'w'.repeat(1001) }]);
    expect(long.body).toEqual(error('narrow[0]["operand"] is too long (limit: 1000 characters)'));
  });
});
