import { startTestContext, type TestContext } from '../../test/harness';
import { execByNode } from './by-node';
import { isCluster } from './connect';
import { keySlot } from './key-slot';

/** On the single Redis and, in CI's second pass, on the 6-node cluster (TEST_REDIS_CLUSTER_NODES). */
let t: TestContext;
beforeAll(async () => {
  t = await startTestContext();
});
afterAll(() => t.close());

const keysOnManySlots = (n: number) =>
  Array.from({ length: n }, (_, i) => `${t.config.redisPrefix}by-node:{k${i}}`);

it('returns every reply in the order of the commands, whatever node served them', async () => {
  const keys = keysOnManySlots(40);
  expect(new Set(keys.map(keySlot)).size).toBeGreaterThan(3);
  await execByNode(
    t.redis,
    keys.map((key, i) => ({ key, add: (p) => p.set(key, String(i)) })),
    { replicated: true },
  );
  const values = await execByNode(
    t.redis,
    keys.flatMap((key) => [
      { key, add: (p) => p.incr(key) },
      { key, add: (p) => p.get(key) },
    ]),
  );
  expect(values).toEqual(keys.flatMap((_, i) => [i + 1, String(i + 1)]));
  if (isCluster(t.redis)) {
    const cluster = t.redis;
    expect(new Set(keys.map((key) => cluster.slots[keySlot(key)][0])).size).toBe(3);
  }
});

it('throws the error of a failing command', async () => {
  const [key] = keysOnManySlots(1);
  await t.redis.set(key, 'not a number');
  await expect(
    execByNode(t.redis, [
      { key: `${key}:other`, add: (p) => p.set(`${key}:other`, '1') },
      { key, add: (p) => p.incr(key) },
    ]),
  ).rejects.toThrow(/not an integer/);
});

it('runs nothing for no commands', async () => {
  expect(await execByNode(t.redis, [])).toEqual([]);
});
