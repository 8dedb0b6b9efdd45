import type { Logger } from '../core/log';
import { startTestContext, type TestContext } from '../../test/harness';
import { connectRedis } from './connect';
import { SYNC_INTERVAL_MS, WindowCounter } from './window-counter';

/** On the single Redis and, in CI's second pass, on the 6-node cluster (TEST_REDIS_CLUSTER_NODES). */
let t: TestContext;
beforeAll(async () => {
  t = await startTestContext();
});
afterAll(() => t.close());

let counters = 0;
/** Counters on one prefix stand for processes sharing the Redis counter. */
const newPrefix = () => `${t.config.redisPrefix}ratelimit:test${counters++}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function counts(counter: WindowCounter, id: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await counter.add(id)).count);
  return out;
}

it('counts every request of a process, asking Redis only for the first of a window', async () => {
  const prefix = newPrefix();
  const counter = new WindowCounter(t.redis, prefix, 60, t.log);
  expect(await counts(counter, '7', 5)).toEqual([1, 2, 3, 4, 5]);
  expect(await t.redis.get(`${prefix}:7`)).toBe('1');
  const { msLeft } = await counter.add('7');
  expect(msLeft).toBeGreaterThan(55_000);
  expect(msLeft).toBeLessThanOrEqual(60_000);
  // Another id has a count of its own.
  expect(await counts(counter, '8', 2)).toEqual([1, 2]);

  await sleep(SYNC_INTERVAL_MS * 3);
  expect(await t.redis.get(`${prefix}:7`)).toBe('6');
  expect(await t.redis.get(`${prefix}:8`)).toBe('2');
  expect(await t.redis.pttl(`${prefix}:7`)).toBeGreaterThan(55_000);
});

it("shares one count between processes, each hearing of the others' requests at its next sync", async () => {
  const prefix = newPrefix();
  const a = new WindowCounter(t.redis, prefix, 60, t.log);
  const b = new WindowCounter(t.redis, prefix, 60, t.log);
  expect(await counts(a, '1', 3)).toEqual([1, 2, 3]);
  await a.flush();
  expect(await counts(b, '1', 2)).toEqual([4, 5]);
  await b.flush();
  // a has not synced since b counted 5.
  expect(await counts(a, '1', 1)).toEqual([4]);
  await a.flush();
  expect(await counts(a, '1', 1)).toEqual([7]);
  await a.flush();
  expect(await t.redis.get(`${prefix}:1`)).toBe('7');
});

it('adds the counts of many ids in one sync, each to its own counter', async () => {
  const prefix = newPrefix();
  const a = new WindowCounter(t.redis, prefix, 60, t.log);
  const b = new WindowCounter(t.redis, prefix, 60, t.log);
  const ids = Array.from({ length: 40 }, (_, i) => String(i));
  // Id i: its window opened with one request, then i more counted here.
  for (const id of ids) await counts(a, id, 1 + Number(id));
  await a.flush();
  for (const id of ids) {
    expect(await t.redis.get(`${prefix}:${id}`)).toBe(String(1 + Number(id)));
    expect(await counts(b, id, 1)).toEqual([2 + Number(id)]);
  }
  await b.flush();
  // a hears of b's request at its next sync, id by id.
  for (const id of ids) await counts(a, id, 1);
  await a.flush();
  for (const id of ids) expect((await a.add(id)).count).toBe(4 + Number(id));
});

it('starts a new window once the last one ended', async () => {
  const prefix = newPrefix();
  const counter = new WindowCounter(t.redis, prefix, 1, t.log);
  expect(await counts(counter, '1', 3)).toEqual([1, 2, 3]);
  await sleep(1_100);
  expect(await counts(counter, '1', 2)).toEqual([1, 2]);
});

it('keeps the counts while Redis cannot be reached and adds them once it can', async () => {
  const prefix = newPrefix();
  const redis = connectRedis(t.config);
  const warn = jest.fn();
  const log: Logger = {
    error: jest.fn(),
    warn,
    info: jest.fn(),
    debug: jest.fn(),
    child: () => log,
  };
  const counter = new WindowCounter(redis, prefix, 60, log);
  try {
    expect(await counts(counter, '1', 1)).toEqual([1]);
    redis.disconnect();
    expect(await counts(counter, '1', 2)).toEqual([2, 3]);
    await counter.flush();
    await counter.flush();
    expect(warn).toHaveBeenCalledTimes(1);
    await redis.connect();
    await counter.flush();
    expect(await t.redis.get(`${prefix}:1`)).toBe('3');
    expect(await counts(counter, '1', 1)).toEqual([4]);
  } finally {
    redis.disconnect();
  }
});
