/**
 * Message retention under the sustained load (not a test): `npx tsx bench/retention-under-load.ts`.
 *
 * Runs `npm start` (the compiled `apps/all`, BENCH_WEB_CONCURRENCY processes, unset: one per
 * core; BENCH_DIST_DIR picks another build; RETENTION_DUTY_CYCLE reaches it) against a scratch
 * database holding BENCH_EXPIRED (1,000,000) messages older than the organization's retention (30
 * days, set once the clients poll, before the load): in BENCH_OLD_CHANNELS (200) channels of
 * BENCH_OLD_MEMBERS (5) of the clients, a topic every 20 messages, one in ten a direct message
 * between two of them, one in a hundred with a reaction, interleaved in time as an organization's
 * history is. BENCH_CLIENTS (2,000) clients in channels of 50 register and poll
 * as bench S's clients of before issue 48 do (node:http, message events only, one sender, plain
 * content), and messages go at BENCH_RATE (20) a second through three phases, the sustained load
 * throughout:
 * 1. `without`: BENCH_SECONDS (60) of load alone;
 * 2. `with`: the retention job (`archiveExpiredMessages`, enqueued as the hourly schedule does)
 *    runs in the server's workers until no expired message is left (at most BENCH_MAX_SECONDS);
 * 3. `after`: BENCH_SECONDS of load alone again.
 * Each phase reports send and delivery p50/p99, lost deliveries, 5xx and the load average; the
 * `with` phase also the messages archived and their rate.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Prisma } from '../generated/prisma/client';
import { enqueueJob } from '../libs/jobs/enqueue';
import { JobName } from '../libs/jobs/job-catalogue';
import { makeChannel } from '../test/channel-factories';
import { makeRealm, makeUser } from '../test/factories';
import { startTier, type Tier } from '../test/multiprocess/processes';
import {
  form,
  newStats,
  registerClients,
  request,
  startPolling,
  type Client,
} from './realtime-clients';
import {
  bulkChannels,
  bulkMembers,
  percentile,
  round,
  sleep,
  withScratchWorld,
  type BenchContext,
} from './scratch-world';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 2000);
const CHANNEL_SIZE = 50;
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 1800);
const EXPIRED = Number(process.env.BENCH_EXPIRED ?? 1_000_000);
const OLD_CHANNELS = Number(process.env.BENCH_OLD_CHANNELS ?? 200);
const OLD_MEMBERS = Number(process.env.BENCH_OLD_MEMBERS ?? 5);
const RETENTION_DAYS = 30;
/** Messages inserted per statement while seeding. */
const SEED_CHUNK = 100_000;

interface Phase {
  name: 'without' | 'with' | 'after';
  first: number;
  last: number;
  seconds: number;
  loadavg: string;
}

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** The expired history: channels of clients, their messages, copies, reactions and DMs. */
async function seedExpired(
  ctx: BenchContext,
  realmId: number,
  members: { id: number }[],
): Promise<void> {
  const recipients: number[] = [];
  const memberIds: number[] = [];
  for (let c = 0; c < OLD_CHANNELS; c++) {
    const group = Array.from(
      { length: OLD_MEMBERS },
      (_, j) => members[(c * OLD_MEMBERS + j) % members.length].id,
    );
    const channel = await makeChannel(ctx, { id: realmId }, { name: `old-${c}` });
    await ctx.db.subscription.createMany({
      data: group.map((userId) => ({
        userId,
        recipientId: channel.recipientId!,
        color: '#c2c2c2',
      })),
    });
    recipients.push(channel.recipientId!);
    memberIds.push(...group);
  }
  // A personal recipient for each member who receives a direct message.
  await ctx.db.$executeRaw(Prisma.sql`
    WITH made AS (
      INSERT INTO recipients (type, type_id)
      SELECT 1, u.id FROM users u
      WHERE u.id = ANY(${memberIds}::int[]) AND u.recipient_id IS NULL
      ON CONFLICT DO NOTHING RETURNING id, type_id)
    UPDATE users u SET recipient_id = made.id FROM made WHERE u.id = made.type_id`);
  const span = 300 * 24 * 3600;
  for (let from = 0; from < EXPIRED; from += SEED_CHUNK) {
    const to = Math.min(EXPIRED, from + SEED_CHUNK) - 1;
    // Message g: channel g % C, sent by member (g / C) % M of it; every tenth a DM to the next
    // member; 400 to 100 days old, oldest first.
    const [{ first, last }] = await ctx.db.$queryRaw<{ first: number; last: number }[]>(Prisma.sql`
      WITH g AS (
        SELECT g, g % ${OLD_CHANNELS} AS c, (g / ${OLD_CHANNELS}) % ${OLD_MEMBERS} AS j,
          g % 10 = 0 AS dm
        FROM generate_series(${from}::int, ${to}::int) g),
      rows AS (
        SELECT g.g, g.dm, (${memberIds}::int[])[1 + g.c * ${OLD_MEMBERS} + g.j] AS sender,
          CASE WHEN g.dm
            THEN (SELECT recipient_id FROM users
                  WHERE id = (${memberIds}::int[])[1 + g.c * ${OLD_MEMBERS} + (g.j + 1) % ${OLD_MEMBERS}])
            ELSE (${recipients}::int[])[1 + g.c] END AS recipient
        FROM g),
      inserted AS (
        INSERT INTO messages (realm_id, sender_id, recipient_id, subject, content, rendered_content,
          date_sent, sending_client_name, is_channel_message)
        SELECT ${realmId}, sender, recipient,
          CASE WHEN dm THEN '' ELSE 'topic ' || (g / (${OLD_CHANNELS} * 20)) END,
          'an old message ' || g, '<p>an old message ' || g || '</p>',
          now() - make_interval(days => 400) + make_interval(secs => g::float8 * ${span} / ${EXPIRED}),
          'bench', NOT dm
        FROM rows ORDER BY g
        RETURNING id)
      SELECT min(id) AS first, max(id) AS last FROM inserted`);
    await ctx.db.$executeRaw(Prisma.sql`
      INSERT INTO user_messages (user_id, message_id, flags)
      SELECT s.user_id, m.id, 1 FROM messages m
      JOIN subscriptions s ON s.recipient_id = m.recipient_id
      WHERE m.id BETWEEN ${first} AND ${last} AND m.is_channel_message
      UNION ALL
      SELECT m.sender_id, m.id, 1 FROM messages m
      WHERE m.id BETWEEN ${first} AND ${last} AND NOT m.is_channel_message
      UNION ALL
      SELECT u.id, m.id, 0 FROM messages m JOIN users u ON u.recipient_id = m.recipient_id
      WHERE m.id BETWEEN ${first} AND ${last} AND NOT m.is_channel_message`);
    await ctx.db.$executeRaw(Prisma.sql`
      INSERT INTO reactions (user_id, message_id, emoji_name, emoji_code, reaction_type)
      SELECT sender_id, id, 'tada', '1f389', 'unicode_emoji' FROM messages
      WHERE id BETWEEN ${first} AND ${last} AND id % 100 = 0`);
    process.stderr.write(`seeded ${to + 1} expired messages (load ${loadavg()})\n`);
  }
  await ctx.db.$executeRawUnsafe('ANALYZE');
}

/** Whether a message older than the retention is left (by the (realm_id, date_sent) index). */
async function expiredLeft(ctx: BenchContext, realmId: number): Promise<boolean> {
  const [row] = await ctx.db.$queryRaw<{ left: boolean }[]>(Prisma.sql`
    SELECT EXISTS (SELECT 1 FROM messages WHERE realm_id = ${realmId}
      AND date_sent < now() - make_interval(days => ${RETENTION_DAYS})) AS left`);
  return row.left;
}

/** Messages archived so far: none before the job is enqueued, else the load ran with it. */
async function archivedCount(ctx: BenchContext): Promise<number> {
  const [{ archived }] = await ctx.db.$queryRaw<{ archived: bigint }[]>`
    SELECT count(*) AS archived FROM archived_messages`;
  return Number(archived);
}

async function main() {
  await withScratchWorld({}, async (ctx, config) => {
    const org = await makeRealm(ctx);
    const owner = await makeUser(ctx, org.realm, { fullName: 'Owner' });
    const members = await bulkMembers(ctx, org.realm.id, CLIENTS, 'load');
    const channels = (await bulkChannels(ctx, org.realm, owner.user, members, CHANNEL_SIZE)).map(
      (c) => ({ id: c.id, members: c.members.map((m) => m.id) }),
    );
    const seedStart = performance.now();
    await seedExpired(ctx, org.realm.id, members);
    const seedSeconds = round((performance.now() - seedStart) / 1000);

    const all = await startTier(
      'all',
      config,
      {
        HEARTBEAT_SECONDS: '60',
        EVENTS_AUTH_CACHE_SECONDS: '10',
        OVERLOAD_EVENT_LOOP_LAG_MS: '500',
        OVERLOAD_ANSWER_TARGET_MS: '300',
        WEB_CONCURRENCY: process.env.BENCH_WEB_CONCURRENCY ?? String(availableParallelism()),
      },
      undefined,
      { built: !process.env.BENCH_DIST_DIR, startSeconds: 120 },
    );
    try {
      const report = { seedSeconds, ...(await run(ctx, org, owner.auth, all, members, channels)) };
      // Printed before the clean-up, which may fail on a busy box and must not take the figures.
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      return report;
    } finally {
      await all.stop();
    }
  });
}

async function run(
  ctx: BenchContext,
  org: { realm: { id: number }; host: string },
  senderAuth: string,
  all: Tier,
  members: { id: number; auth: string }[],
  channels: { id: number; members: number[] }[],
) {
  const stats = newStats();
  const sentAt = new Map<number, number>();
  const deliveries = new Map<number, number[]>();
  const { clients } = await registerClients({
    apiUrl: all.url,
    host: org.host,
    members,
    concurrency: 20,
    eventsUrlOf: () => all.url,
    stats,
  });
  const stop = startPolling(clients, org.host, sentAt, stats, (k, ms) => {
    const list = deliveries.get(k) ?? [];
    list.push(ms);
    deliveries.set(k, list);
  });
  // Set before the load rather than with the job: a change to the organization drops every
  // cached credential of its users, and the 2,000 polls' re-authentication that follows is no
  // part of the job (it refused sends with 503 for the job's first 10 s). The worker ran its
  // hourly job at start, before this, and found nothing to do.
  await ctx.db.realm.update({
    where: { id: org.realm.id },
    data: { messageRetentionDays: RETENTION_DAYS },
  });
  await sleep(5000);

  const sendMs = new Map<number, number>();
  const accepted = new Set<number>();
  let serverErrors = 0;
  let k = 0;
  /** Sends at RATE until `until()` says stop; returns the phase's first and last message. */
  const sendWhile = async (until: () => boolean | Promise<boolean>) => {
    const first = k + 1;
    const start = performance.now();
    const sends: Promise<void>[] = [];
    for (let i = 0; !(await until()); i++) {
      const wait = start + (i * 1000) / RATE - performance.now();
      if (wait > 0) await sleep(wait);
      const n = ++k;
      const channel = channels[(n - 1) % channels.length];
      const started = performance.now();
      sentAt.set(n, started);
      sends.push(
        request(
          `${all.url}/api/v1/messages`,
          'POST',
          senderAuth,
          org.host,
          form({ type: 'stream', to: String(channel.id), topic: 'load', content: `m${n}m` }),
        ).then(
          (res) => {
            sendMs.set(n, performance.now() - started);
            if (res.status === 200) accepted.add(n);
            if (res.status >= 500) serverErrors++;
          },
          () => undefined,
        ),
      );
    }
    await Promise.allSettled(sends);
    return { first, last: k, seconds: round((performance.now() - start) / 1000) };
  };
  const timed = (seconds: number) => {
    const end = performance.now() + seconds * 1000;
    return () => performance.now() >= end;
  };

  const phases: Phase[] = [];
  phases.push({ name: 'without', ...(await sendWhile(timed(SECONDS))), loadavg: loadavg() });
  const archivedBefore = await archivedCount(ctx);
  await enqueueJob(ctx, JobName.ARCHIVE_EXPIRED_MESSAGES, {});
  const deadline = timed(MAX_SECONDS);
  let checkedAt = 0;
  let done = false;
  const retentionDone = async () => {
    if (done || deadline()) return true;
    if (performance.now() - checkedAt < 1000) return false;
    checkedAt = performance.now();
    done = !(await expiredLeft(ctx, org.realm.id));
    return done;
  };
  phases.push({ name: 'with', ...(await sendWhile(retentionDone)), loadavg: loadavg() });
  const archived = await archivedCount(ctx);
  phases.push({ name: 'after', ...(await sendWhile(timed(SECONDS))), loadavg: loadavg() });
  await sleep(10_000);
  stop();

  const [withPhase] = phases.filter((p) => p.name === 'with');
  return {
    clients: CLIENTS,
    rate: RATE,
    expired: EXPIRED,
    retention: {
      archivedBefore,
      archived,
      finished: done,
      seconds: withPhase.seconds,
      messagesPerSecond: Math.round((archived - archivedBefore) / withPhase.seconds),
    },
    serverErrors,
    phases: phases.map((p) => summary(p, clients, channels, sendMs, accepted, deliveries)),
  };
}

/** One phase's figures: its accepted sends' latency, their deliveries', and what was lost. */
function summary(
  phase: Phase,
  clients: Client[],
  channels: { members: number[] }[],
  sendMs: Map<number, number>,
  accepted: Set<number>,
  deliveries: Map<number, number[]>,
) {
  const sends: number[] = [];
  const delivered: number[] = [];
  let expected = 0;
  for (let n = phase.first; n <= phase.last; n++) {
    if (!accepted.has(n)) continue;
    sends.push(sendMs.get(n)!);
    delivered.push(...(deliveries.get(n) ?? []));
    expected += channels[(n - 1) % channels.length].members.length;
  }
  sends.sort((a, b) => a - b);
  delivered.sort((a, b) => a - b);
  const seen = clients.reduce(
    (sum, c) => sum + [...c.seen].filter((n) => n >= phase.first && n <= phase.last).length,
    0,
  );
  return {
    phase: phase.name,
    seconds: phase.seconds,
    sent: phase.last - phase.first + 1,
    accepted: sends.length,
    send: { p50: round(percentile(sends, 50)), p99: round(percentile(sends, 99)) },
    delivery: { p50: round(percentile(delivered, 50)), p99: round(percentile(delivered, 99)) },
    lost: expected - seen,
    loadavg: phase.loadavg,
  };
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
