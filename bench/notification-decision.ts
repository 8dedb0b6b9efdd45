/**
 * Notification-decision benchmark (not a timed test). Run with
 * `npx tsx bench/notification-decision.ts`.
 *
 * Creates a throw-away database and an organization with one channel of BENCH_MEMBERS (default
 * 10,000) subscribers besides the sender (users and subscriptions bulk-inserted with SQL). Of
 * them, BENCH_ACTIVE (default 2,000) have an active presence and an event queue polled just now
 * (so the "away" test reads their queues in Redis), and BENCH_DEVICES (default 2,000) have a
 * mobile device. The API runs in-process on loopback and the worker tier in-process beside it,
 * as `npm start` runs them. The sender posts BENCH_MESSAGES (default 10) channel-wide mentions
 * (`@**all**`) through `POST /messages` (Basic auth, form body), one after the other, each
 * once the previous decision is done, after one warm-up message to a 20-member channel (the
 * worker's first job pays for loading code and planning queries; its figure is printed apart).
 * Per message it prints the send's latency and the
 * worker's decision and enqueue time: who is notified (the rules module for every member), who
 * is away, the missed-message email rows and jobs, the push job. Pushes themselves are not
 * sent (the push job is counted, not run): this measures the decision, not the bouncer.
 *
 * Environment: TEST_PG_URL and REDIS_URL (bench/scratch-world.ts), BENCH_MEMBERS,
 * BENCH_ACTIVE, BENCH_DEVICES, BENCH_MESSAGES.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { jobHandlers } from '../apps/worker/handlers';
import { handler, startWorkers } from '../apps/worker/start-workers';
import { insertChannel } from '../libs/domain/channels/insert-channel';
import { systemGroupIds } from '../libs/domain/groups/system-groups';
import { decideMessageNotifications } from '../libs/domain/notifications/decide-notifications';
import { inTransaction } from '../libs/events/outbox';
import { QueueStore } from '../libs/events/queue-store';
import { DEFAULT_CAPABILITIES } from '../libs/protocol/queue';
import { JobName } from '../libs/jobs';
import {
  type BenchContext,
  benchOrganization,
  postChannelMessage,
  withApiServer,
  withScratchWorld,
} from './scratch-world';

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 10000);
const ACTIVE = Number(process.env.BENCH_ACTIVE ?? 2000);
const DEVICES = Number(process.env.BENCH_DEVICES ?? 2000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 10);

async function populate(
  ctx: BenchContext,
  realmId: number,
  senderId: number,
): Promise<{ streamId: number; warmUpId: number }> {
  const ids = await inTransaction(ctx, async (tx) => {
    const groups = await systemGroupIds(tx, realmId);
    const stream = await insertChannel(tx, groups, {
      realmId,
      name: 'everyone',
      description: '',
      renderedDescription: '',
      creatorId: senderId,
    });
    const warmUp = await insertChannel(tx, groups, {
      realmId,
      name: 'warm-up',
      description: '',
      renderedDescription: '',
      creatorId: senderId,
    });
    await tx.$executeRawUnsafe(
      `INSERT INTO users (realm_id, email, delivery_email, full_name, api_key_hash, api_key_ciphertext)
       SELECT $1::int, 'm' || g || '@example.com', 'm' || g || '@example.com', 'Member ' || g, 'k' || g, ''
       FROM generate_series(1, $2::int) AS g`,
      realmId,
      MEMBERS,
    );
    await tx.$executeRawUnsafe(
      `INSERT INTO subscriptions (user_id, recipient_id)
       SELECT id, $1::int FROM users WHERE realm_id = $2::int`,
      stream.recipientId,
      realmId,
    );
    await tx.$executeRawUnsafe(
      `INSERT INTO subscriptions (user_id, recipient_id)
       SELECT id, $1::int FROM users WHERE realm_id = $2::int ORDER BY id LIMIT 20`,
      warmUp.recipientId,
      realmId,
    );
    await tx.$executeRawUnsafe(
      `INSERT INTO push_device_tokens (user_id, kind, token)
       SELECT id, 2, 'token-' || id FROM users WHERE realm_id = $1::int AND id <> $2::int
       ORDER BY id DESC LIMIT $3::int`,
      realmId,
      senderId,
      DEVICES,
    );
    await tx.$executeRawUnsafe(
      `INSERT INTO user_presences (user_id, realm_id, last_active_time, last_connected_time)
       SELECT id, $1::int, now(), now() FROM users WHERE realm_id = $1::int AND id <> $2::int
       ORDER BY id LIMIT $3::int`,
      realmId,
      senderId,
      ACTIVE,
    );
    return { streamId: stream.id, warmUpId: warmUp.id };
  });
  const active = await ctx.db.userPresence.findMany({ select: { userId: true } });
  const store = QueueStore.of(ctx);
  for (const { userId } of active) {
    await store.create({
      userId,
      realmId,
      eventTypes: null,
      narrow: [],
      allPublicStreams: false,
      applyMarkdown: true,
      clientGravatar: false,
      slimPresence: false,
      capabilities: DEFAULT_CAPABILITIES,
      client: 'bench',
    });
  }
  return ids;
}

async function main(): Promise<void> {
  const env = {
    NODE_ENV: 'production',
    SECRET_KEY: randomBytes(32).toString('hex'),
    RATE_LIMIT_API_REQUESTS: '1000000',
    // A bouncer registration, so that pushes are decided; the push job is counted, never run.
    PUSH_NOTIFICATION_BOUNCER_URL: 'http://127.0.0.1:10699',
    ZULIP_ORG_ID: randomUUID(),
    ZULIP_ORG_KEY: randomBytes(32).toString('hex'),
  };
  await withScratchWorld(env, async (ctx) => {
    const decisions = new Map<number, { ms: number; emails: number; pushes: number }>();
    let pushJobs = 0;
    let pushRecipients = 0;
    const handlers = jobHandlers.map((entry) => {
      if (entry.name === JobName.NOTIFY_MESSAGE) {
        return handler(JobName.NOTIFY_MESSAGE, async (c, payload) => {
          const t0 = performance.now();
          const outcome = await decideMessageNotifications(c, payload);
          decisions.set(payload.messageId, {
            ms: performance.now() - t0,
            emails: outcome.emails,
            pushes: outcome.pushes,
          });
        });
      }
      if (entry.name === JobName.PUSH_MESSAGE) {
        return handler(JobName.PUSH_MESSAGE, async (_c, payload) => {
          pushJobs += 1;
          pushRecipients += payload.recipients.length;
        });
      }
      return entry;
    });
    const workers = startWorkers(ctx, handlers);
    try {
      await withApiServer(ctx, async (baseUrl) => {
        const { realmId, ownerId, auth } = await benchOrganization(ctx);
        const { streamId, warmUpId } = await populate(ctx, realmId, ownerId);
        process.stdout.write(
          `${MEMBERS} members (${ACTIVE} present with a polled queue, ${DEVICES} with a device); ${MESSAGES} @**all** messages\n`,
        );
        process.stdout.write('message | send ms | decide+enqueue ms | emails | pushes\n');
        const sendAndDecide = async (to: number, topic: string) => {
          const t0 = performance.now();
          const id = await postChannelMessage(baseUrl, auth, {
            to,
            topic,
            content: `@**all** ${topic}: the build is green`,
          });
          const sendMs = performance.now() - t0;
          const deadline = Date.now() + 60_000;
          while (!decisions.has(id)) {
            if (Date.now() > deadline) throw new Error('decision did not finish within 60 s');
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          return { sendMs, ...decisions.get(id)! };
        };
        const warm = await sendAndDecide(warmUpId, 'warm-up');
        process.stdout.write(
          `warm-up (20 members) | ${warm.sendMs.toFixed(1)} | ${warm.ms.toFixed(1)} | ${warm.emails} | ${warm.pushes}\n`,
        );
        const decideTimes: number[] = [];
        for (let i = 0; i < MESSAGES; i++) {
          const d = await sendAndDecide(streamId, `announcement ${i}`);
          decideTimes.push(d.ms);
          process.stdout.write(
            `${String(i + 1).padStart(7)} | ${d.sendMs.toFixed(1).padStart(7)} | ${d.ms.toFixed(1).padStart(17)} | ${String(d.emails).padStart(6)} | ${String(d.pushes).padStart(6)}\n`,
          );
        }
        const sorted = [...decideTimes].sort((a, b) => a - b);
        const waiting = await ctx.db.missedMessageEmail.count();
        process.stdout.write(
          `decide+enqueue: median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms; ` +
            `${waiting} email rows waiting; ${pushJobs} push jobs for ${pushRecipients} recipients\n`,
        );
      });
    } finally {
      await workers.close();
    }
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
