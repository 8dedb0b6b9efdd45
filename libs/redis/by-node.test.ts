import type { Cluster, Redis } from 'ioredis';
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
    keys.map((key, i) => ({ key, command: 'set', args: [key, String(i)] })),
    { replicated: true },
  );
  const values = await execByNode(
    t.redis,
    keys.flatMap((key) => [
      { key, command: 'incr', args: [key] },
      { key, command: 'get', args: [key] },
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
      { key: `${key}:other`, command: 'set', args: [`${key}:other`, '1'] },
      { key, command: 'incr', args: [key] },
    ]),
  ).rejects.toThrow(/not an integer/);
});

it('runs nothing for no commands', async () => {
  expect(await execByNode(t.redis, [])).toEqual([]);
});

it('refuses a command the client does not have, before sending its pipeline', async () => {
  const [key] = keysOnManySlots(1);
  await t.redis.del(key);
  await expect(
    execByNode(t.redis, [
      { key, command: 'set', args: [key, '1'] },
      { key, command: 'notACommand', args: [key] },
    ]),
  ).rejects.toThrow('no Redis command notACommand');
  expect(await t.redis.get(key)).toBeNull();
});

/** Hands an empty slot to another master, as resharding does, without telling ioredis. */
async function moveEmptySlot(cluster: Cluster, slot: number, from: Redis, to: Redis) {
  const [fromId, toId] = (await Promise.all([
    from.cluster('MYID'),
    to.cluster('MYID'),
  ])) as string[];
  await to.cluster('SETSLOT', slot, 'IMPORTING', fromId);
  await from.cluster('SETSLOT', slot, 'MIGRATING', toId);
  for (const node of [to, from, ...cluster.nodes('master')]) {
    await node.cluster('SETSLOT', slot, 'NODE', toId);
  }
  // Replicas learn it by gossip; ioredis may ask any node for the map.
  const address = `${to.options.host}:${to.options.port}`;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const maps = await Promise.all(cluster.nodes('all').map((n) => n.cluster('SLOTS')));
    const owners = maps.map((ranges) => {
      const range = ranges.find(([first, last]) => slot >= first && slot <= last);
      return range?.[2] && `${range[2][0]}:${range[2][1]}`;
    });
    if (owners.every((owner) => owner === address)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the cluster did not agree that ${address} serves slot ${slot}`);
}

it('after a MOVED reply, reloads the slot map so that the next batch reaches the new master', async () => {
  if (!isCluster(t.redis)) return;
  const cluster = t.redis;
  // A slot of its own: the earlier tests' keys stay, and a slot with keys cannot be handed over.
  const moved = `{${t.config.redisPrefix}by-node-moved}`;
  const rest = keysOnManySlots(40);
  const slot = keySlot(moved);
  const owner = cluster.slots[slot][0];
  const stays = rest.find((key) => cluster.slots[keySlot(key)][0] === owner)!;
  const masters = cluster.nodes('master');
  const from = masters.find((n) => `${n.options.host}:${n.options.port}` === owner)!;
  const to = masters.find((n) => n !== from)!;
  await moveEmptySlot(cluster, slot, from, to);
  try {
    // ioredis still sends the slot to its old master, with a key that did not move: the
    // pipeline gets one MOVED and one success, and ioredis hands the MOVED back.
    const batch = [moved, stays].map((key) => ({ key, command: 'set', args: [key, 'moved'] }));
    await expect(execByNode(cluster, batch)).rejects.toThrow(/^MOVED /);
    expect(cluster.slots[slot][0]).toBe(`${to.options.host}:${to.options.port}`);
    await expect(execByNode(cluster, batch)).resolves.toEqual(['OK', 'OK']);
  } finally {
    await cluster.del(moved);
    await moveEmptySlot(cluster, slot, to, from);
    await new Promise<void>((resolve) => cluster.refreshSlotsCache(() => resolve()));
  }
});
