import { BOT_STORAGE_SIZE_LIMIT } from '../../../libs/domain/bots/put-bot-storage';
import type { TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { type Organization, organization } from '../../../test/organization';

/** Issue 14: the bot runner's state handler keeps its state through `/bot_storage`. */
let t: TestContext;
let org: Organization;
let bot: TestUser;
let other: TestUser;

beforeAll(async () => {
  org = await organization({ members: { bot: { botOf: 'owner' }, other: { botOf: 'owner' } } });
  ({ t } = org);
  ({ bot, other } = org.users);
});
afterAll(() => org.close());

const storage = (method: 'get' | 'put' | 'delete', who: TestUser, form: Record<string, string>) =>
  org.as(who)[method]('/bot_storage', form);

describe('/bot_storage', () => {
  it('stores, reads and removes string values per account', async () => {
    const put = await storage('put', bot, {
      storage: JSON.stringify({ count: '1', 'user:alice': 'hello' }),
    });
    expect(put.body).toEqual({ result: 'success', msg: '' });
    await storage('put', bot, { storage: JSON.stringify({ count: '2' }) });

    expect((await storage('get', bot, {})).body).toEqual({
      result: 'success',
      msg: '',
      storage: { count: '2', 'user:alice': 'hello' },
    });
    expect((await storage('get', bot, { keys: JSON.stringify(['count']) })).body.storage).toEqual({
      count: '2',
    });
    // Another account sees its own storage only.
    expect((await storage('get', other, {})).body.storage).toEqual({});

    expect((await storage('delete', bot, { keys: JSON.stringify(['count']) })).body).toEqual({
      result: 'success',
      msg: '',
    });
    expect((await storage('get', bot, {})).body.storage).toEqual({ 'user:alice': 'hello' });
    await storage('delete', bot, {});
    expect((await storage('get', bot, {})).body.storage).toEqual({});
  });

  it('refuses unknown keys with Zulip errors, removing nothing', async () => {
    await storage('put', bot, { storage: JSON.stringify({ kept: 'yes' }) });
    const missing = { result: 'error', msg: 'Key does not exist.', code: 'BAD_REQUEST' };
    const got = await storage('get', bot, { keys: JSON.stringify(['kept', 'nope']) });
    expect(got.status).toBe(400);
    expect(got.body).toEqual(missing);
    const removed = await storage('delete', bot, { keys: JSON.stringify(['kept', 'nope']) });
    expect(removed.body).toEqual(missing);
    expect((await storage('get', bot, {})).body.storage).toEqual({ kept: 'yes' });
  });

  it('takes string values only', async () => {
    const res = await storage('put', bot, { storage: JSON.stringify({ n: 1 }) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'storage["n"] is not a string',
      code: 'BAD_REQUEST',
    });
    expect((await storage('put', bot, {})).body).toMatchObject({
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'storage',
    });
  });

  it('keeps keys and values within the 10,000,000-character limit', async () => {
    expect(BOT_STORAGE_SIZE_LIMIT).toBe(10_000_000);
    await storage('delete', other, {});
    // 3 + 9,999,990 characters stored; 4 + 6 more would pass the limit by 3.
    await t.db.botStorageData.create({
      data: { botId: other.user.id, key: 'big', value: 'x'.repeat(9_999_990) },
    });
    const over = await storage('put', other, { storage: JSON.stringify({ more: 'abcdef' }) });
    expect(over.body).toEqual({
      result: 'error',
      msg: 'Request exceeds storage limit by 3 characters. The limit is 10000000 characters.',
      code: 'BAD_REQUEST',
    });
    // Characters are code points, as in Zulip: 4 + 3 more reach the limit exactly.
    const full = await storage('put', other, { storage: JSON.stringify({ more: '😀bc' }) });
    expect(full.body).toEqual({ result: 'success', msg: '' });
    // Replacing a value counts only the difference.
    const replaced = await storage('put', other, { storage: JSON.stringify({ big: 'x' }) });
    expect(replaced.body).toEqual({ result: 'success', msg: '' });
    expect((await storage('get', other, {})).body.storage).toEqual({ big: 'x', more: '😀bc' });
  });
});
