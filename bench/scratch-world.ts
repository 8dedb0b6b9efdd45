import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createApiApp } from '../apps/api/app';
import type { Realm, Stream, User } from '../generated/prisma/client';
import { loadConfig } from '../libs/config/load-config';
import type { Config } from '../libs/core/config';
import { applyMigrations } from '../libs/db/migrate';
import { sendMessage } from '../libs/domain/messages/send-message';
import { createRealm } from '../libs/domain/realms/create-realm';
import { hashApiKey } from '../libs/domain/users/api-keys';
import { QueueStore } from '../libs/events/queue-store';
import { type QueueInfo } from '../libs/events/queue-info';
import { DEFAULT_CAPABILITIES } from '../libs/protocol/queue';
import { createAppContext } from '../libs/runtime/create-app-context';
import { makeChannel } from '../test/channel-factories';
import { databaseUrl, dropDatabase, withAdminClient } from '../test/databases';
import { basicAuth, deleteKeys } from '../test/harness';

export type BenchContext = ReturnType<typeof createAppContext>;

/**
 * Runs a benchmark against a scratch database (migrated from scratch) and a scratch Redis prefix,
 * both removed afterwards whatever happens.
 */
export async function withScratchWorld<T>(
  env: Record<string, string>,
  run: (ctx: BenchContext, config: Config) => Promise<T>,
): Promise<T> {
  const suffix = randomBytes(4).toString('hex');
  const dbName = `chat_bench_${suffix}`;
  await withAdminClient((c) => c.query(`CREATE DATABASE "${dbName}"`));
  await applyMigrations(databaseUrl(dbName));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl(dbName),
    REDIS_PREFIX: `bench:${suffix}:`,
    // Another Redis, e.g. one of your own whose statistics nobody else moves.
    ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}),
    // A Redis Cluster's seed nodes (scripts/redis-cluster.sh start) to run on instead.
    REDIS_CLUSTER_NODES: process.env.BENCH_REDIS_CLUSTER_NODES ?? '',
    EXTERNAL_HOST: 'chat.test',
    BCRYPT_ROUNDS: '4',
    LOG_LEVEL: 'error',
    ...env,
  });
  const ctx = createAppContext(config, { maxConnections: 10, logStream: 'stderr' });
  try {
    return await run(ctx, config);
  } finally {
    // BullMQ's keys carry the prefix after a hash tag of their own.
    await deleteKeys(ctx.redis, `*${config.redisPrefix}*`);
    await ctx.close();
    await withAdminClient((c) => dropDatabase(c, dbName));
  }
}

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** `x` to `digits` decimals; NaN for no value (the percentile of no samples). */
export const round = (x: number | undefined, digits = 1) =>
  x === undefined ? NaN : Math.round(x * 10 ** digits) / 10 ** digits;

/** The `q`th percentile of unsorted samples, to one decimal. */
export const quantile = (xs: number[], q: number) =>
  round(
    percentile(
      [...xs].sort((a, b) => a - b),
      q,
    ),
  );

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Inserts `count` member accounts with known API keys in one statement. */
export async function bulkMembers(
  ctx: BenchContext,
  realmId: number,
  count: number,
  tag: string,
): Promise<{ id: number; auth: string }[]> {
  const keys = Array.from({ length: count }, () => randomBytes(16).toString('hex'));
  const rows = keys.map((key, i) => ({
    realmId,
    email: `${tag}-${i}@bench.test`,
    deliveryEmail: `${tag}-${i}@bench.test`,
    fullName: `Bench ${tag} ${i}`,
    apiKeyHash: hashApiKey(key),
    apiKeyCiphertext: '',
  }));
  const created = await ctx.db.user.createManyAndReturn({ data: rows, select: { id: true } });
  return created.map((u, i) => ({ id: u.id, auth: basicAuth(rows[i].email, keys[i]) }));
}

/**
 * One channel `load-<n>` per `size` members, in order, each with its owners (the senders) and its
 * members subscribed (the members in one statement a channel).
 */
export async function bulkChannels<M extends { id: number }>(
  ctx: BenchContext,
  realm: Realm,
  owners: User | User[],
  members: M[],
  size: number,
): Promise<{ id: number; name: string; members: M[] }[]> {
  const channels: { id: number; name: string; members: M[] }[] = [];
  for (let i = 0; i < members.length; i += size) {
    const group = members.slice(i, i + size);
    const channel = await makeChannel(ctx, realm, {
      name: `load-${i / size}`,
      subscribers: Array.isArray(owners) ? owners : [owners],
    });
    await ctx.db.subscription.createMany({
      data: group.map((m) => ({
        userId: m.id,
        recipientId: channel.recipientId!,
        color: '#c2c2c2',
      })),
    });
    channels.push({ id: channel.id, name: channel.name, members: group });
  }
  return channels;
}

/** Sends message number `m` to the channel through the domain action, as an API replica does. */
export async function sendBenchMessage(
  ctx: BenchContext,
  sender: User,
  realm: Realm,
  channel: Stream,
  m: number,
): Promise<void> {
  await sendMessage(ctx, {
    sender,
    realm,
    type: 'stream',
    to: channel.id,
    topic: 'bench',
    content: `message ${m}`,
    clientName: 'bench',
  });
}

/** A queue as a plain client registers it (Markdown on, no narrow), straight in the store. */
export function benchQueue(
  config: Config,
  ctx: BenchContext,
  userId: number,
  realmId: number,
  eventTypes: string[] | null,
): Promise<QueueInfo> {
  return QueueStore.of(ctx).create({
    userId,
    realmId,
    eventTypes,
    narrow: [],
    allPublicStreams: false,
    applyMarkdown: true,
    clientGravatar: false,
    slimPresence: false,
    capabilities: DEFAULT_CAPABILITIES,
    client: 'bench',
  });
}

/** The API app of `ctx` listening on an ephemeral loopback port while `run` runs. */
export async function withApiServer<T>(
  ctx: BenchContext,
  run: (baseUrl: string) => Promise<T>,
): Promise<T> {
  const server = createApiApp(ctx).listen(0, '127.0.0.1');
  try {
    if (!server.listening) {
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    }
    const { port } = server.address() as AddressInfo;
    return await run(`http://127.0.0.1:${port}`);
  } finally {
    server.close();
  }
}

/** An organization whose owner sends, with the owner's Basic credentials. */
export async function benchOrganization(ctx: BenchContext) {
  const created = await createRealm(ctx, {
    stringId: '',
    name: 'Bench',
    owner: { email: 'sender@example.com', fullName: 'Bench Sender', password: null },
  });
  return {
    realmId: created.realm.id,
    ownerId: created.owner.user.id,
    auth: basicAuth(created.owner.user.email, created.owner.apiKey),
  };
}

/** `POST /messages` to a channel as a client sends it (form body); the new message's id. */
export async function postChannelMessage(
  baseUrl: string,
  auth: string,
  message: { to: number; topic: string; content: string },
): Promise<number> {
  const res = await fetch(`${baseUrl}/api/v1/messages`, {
    method: 'POST',
    headers: {
      Authorization: auth,
      'Content-Type': 'application/x-www-form-urlencoded',
      'User-Agent': 'BenchClient/1.0',
    },
    body: new URLSearchParams({
      type: 'stream',
      to: String(message.to),
      topic: message.topic,
      content: message.content,
    }),
  });
  const body = (await res.json()) as { id?: number; msg?: string };
  if (res.status !== 200 || body.id === undefined) {
    throw new Error(`send failed: ${res.status} ${body.msg}`);
  }
  return body.id;
}
