/**
 * Message-send benchmark (not a timed test). Run with `npx tsx bench/send-messages.ts`.
 *
 * Creates a throw-away database (all migrations applied), an organization, and channels with
 * 10, 1,000 and 10,000 subscribers (users and subscriptions bulk-inserted with SQL), then sends
 * messages through the real HTTP API (in-process server on loopback, Basic auth, form body) one
 * at a time and prints messages per second and p50/p99 latency per channel size.
 *
 * Environment: TEST_PG_URL and REDIS_URL (bench/scratch-world.ts), BENCH_MESSAGES (per channel;
 * default 200), BENCH_SIZES (channel sizes, comma-separated; default 10,1000,10000).
 *
 * Per channel size it also prints how much `user_messages` grew per message sent: rows, table
 * bytes (heap and TOAST) and index bytes (primary key, (user_id, message_id), message_id); and
 * `outbox_events` bytes (rows are kept once published: the event and its recipient list).
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../libs/core/context';
import { insertChannel } from '../libs/domain/channels/insert-channel';
import { systemGroupIds } from '../libs/domain/groups/system-groups';
import { inTransaction } from '../libs/events/outbox';
import {
  benchOrganization,
  percentile,
  postChannelMessage,
  withApiServer,
  withScratchWorld,
} from './scratch-world';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200);
const SIZES = (process.env.BENCH_SIZES ?? '10,1000,10000').split(',').map(Number);

/** Bulk-creates `count` member accounts and subscribes them, plus the sender, to a new channel. */
async function channelWithSubscribers(
  ctx: AppContext,
  realmId: number,
  senderId: number,
  count: number,
): Promise<number> {
  return inTransaction(ctx, async (tx) => {
    const groups = await systemGroupIds(tx, realmId);
    const stream = await insertChannel(tx, groups, {
      realmId,
      name: `bench-${count}`,
      description: '',
      renderedDescription: '',
      creatorId: senderId,
    });
    const tag = randomBytes(3).toString('hex');
    await tx.$executeRawUnsafe(
      `INSERT INTO users (realm_id, email, delivery_email, full_name, api_key_hash, api_key_ciphertext)
       SELECT $1::int, 'bench-${tag}-' || g || '@example.com', 'bench-${tag}-' || g || '@example.com',
              'Bench ${tag} ' || g, 'bench-${tag}-' || g, ''
       FROM generate_series(1, $2::int) AS g`,
      realmId,
      count,
    );
    await tx.$executeRawUnsafe(
      `INSERT INTO subscriptions (user_id, recipient_id)
       SELECT id, $1::int FROM users WHERE email LIKE 'bench-${tag}-%'
       UNION SELECT $2::int, $1::int`,
      stream.recipientId,
      senderId,
    );
    return stream.id;
  });
}

/** Rows and on-disk bytes of `user_messages` (table with TOAST, and indexes), and of the outbox. */
async function userMessagesSize(ctx: AppContext) {
  const [row] = await ctx.db.$queryRaw<
    { rows: bigint; table: bigint; indexes: bigint; outbox: bigint }[]
  >`
    SELECT (SELECT count(*) FROM user_messages) AS rows,
           pg_table_size('user_messages') AS table,
           pg_indexes_size('user_messages') AS indexes,
           pg_total_relation_size('outbox_events') AS outbox`;
  return {
    rows: Number(row.rows),
    table: Number(row.table),
    indexes: Number(row.indexes),
    outbox: Number(row.outbox),
  };
}

async function main(): Promise<void> {
  await withScratchWorld(
    {
      NODE_ENV: 'production',
      SECRET_KEY: randomBytes(32).toString('hex'),
      RATE_LIMIT_API_REQUESTS: '1000000',
    },
    (ctx) =>
      withApiServer(ctx, async (baseUrl) => {
        const { realmId, ownerId, auth } = await benchOrganization(ctx);
        process.stdout.write(
          `Sending ${MESSAGES} messages per channel, one at a time, over HTTP\n`,
        );
        process.stdout.write('subscribers | msgs/sec | p50 ms | p99 ms\n');
        for (const size of SIZES) {
          const streamId = await channelWithSubscribers(ctx, realmId, ownerId, size);
          const before = await userMessagesSize(ctx);
          const latencies: number[] = [];
          const started = performance.now();
          for (let i = 0; i < MESSAGES; i++) {
            const t0 = performance.now();
            await postChannelMessage(baseUrl, auth, {
              to: streamId,
              topic: `bench ${i % 10}`,
              content: `Benchmark message ${i} with **some** _markdown_ and a link https://example.com/${i}`,
            });
            latencies.push(performance.now() - t0);
          }
          const elapsed = (performance.now() - started) / 1000;
          latencies.sort((a, b) => a - b);
          const after = await userMessagesSize(ctx);
          const per = (field: keyof typeof after) =>
            ((after[field] - before[field]) / MESSAGES).toFixed(0);
          process.stdout.write(
            `${String(size).padStart(11)} | ${(MESSAGES / elapsed).toFixed(1).padStart(8)} | ${percentile(latencies, 50).toFixed(1).padStart(6)} | ${percentile(latencies, 99).toFixed(1).padStart(6)}   ` +
              `(user_messages per message: ${per('rows')} rows, ${per('table')} table bytes, ${per('indexes')} index bytes; outbox_events ${per('outbox')} bytes)\n`,
          );
        }
      }),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
