import { startTestContext, type TestContext } from '../../test/harness';
import { execByNode } from './by-node';
import { perKeyCommands, perKeyReplies } from './per-key';

/** On the single Redis and, in CI's second pass, on the 6-node cluster (TEST_REDIS_CLUSTER_NODES). */
let t: TestContext;
beforeAll(async () => {
  t = await startTestContext();
});
afterAll(() => t.close());

it('runs a command on each key over several calls, replies in key order', async () => {
  // One hash tag: on a cluster the keys share a slot, as the callers' keys do.
  const keys = Array.from({ length: 2500 }, (_, i) => `${t.config.redisPrefix}{per-key}:${i}`);
  const write = t.redis.pipeline();
  keys.forEach((key, i) => {
    if (i % 7 !== 0) write.sadd(key, `a${i}`, `b${i}`);
  });
  await write.exec();

  const calls = await execByNode(t.redis, perKeyCommands(keys[0], 'SMEMBERS', keys));
  expect(calls).toHaveLength(3);
  const replies = perKeyReplies<string[]>(calls).map((members) => [...members].sort());
  expect(replies).toEqual(keys.map((_, i) => (i % 7 === 0 ? [] : [`a${i}`, `b${i}`])));
});
