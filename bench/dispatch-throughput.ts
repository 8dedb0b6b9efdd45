/**
 * Dispatch throughput (not a test): `npx tsx bench/dispatch-throughput.ts`.
 *
 * Starts BENCH_EVENTS_PROCS `events` processes (default 1) against a scratch database and Redis
 * prefix, registers one queue for each of BENCH_USERS users (default 2,000), then publishes
 * BENCH_ENVELOPES domain events (default 2,000), each for BENCH_FANOUT users (default 50), the
 * way API replicas do after commit (`appendToDomainStream`), all at once, as a burst of account
 * set-up or a mass subscription produces. It reports how long the events tier took to append
 * every event to every queue, as queue appends per second.
 */
import { alertWordsEvent } from '../libs/protocol/events/alert-words';
import { randomBytes } from 'node:crypto';
import { appendToDomainStream } from '../libs/events/domain-stream';
import { QueueStore } from '../libs/events/queue-store';
import { makeRealm } from '../test/factories';
import { startTier, type Tier } from '../test/multiprocess/processes';
import { benchQueue, bulkMembers, sleep, withScratchWorld } from './scratch-world';

const USERS = Number(process.env.BENCH_USERS ?? 2000);
const ENVELOPES = Number(process.env.BENCH_ENVELOPES ?? 2000);
const FANOUT = Number(process.env.BENCH_FANOUT ?? 50);
const EVENTS_PROCS = Number(process.env.BENCH_EVENTS_PROCS ?? 1);

async function main() {
  const report = await withScratchWorld({}, async (ctx, config) => {
    const org = await makeRealm(ctx);
    const users = await bulkMembers(ctx, org.realm.id, USERS, 'fan');
    const store = QueueStore.of(ctx);
    const queues: string[] = [];
    for (let i = 0; i < users.length; i += 200) {
      const made = await Promise.all(
        users.slice(i, i + 200).map((u) => benchQueue(config, ctx, u.id, org.realm.id, null)),
      );
      queues.push(...made.map((q) => q.id));
    }
    const events: Tier[] = [];
    for (let i = 0; i < EVENTS_PROCS; i++) events.push(await startTier('events', config));
    try {
      // Let the replicas settle their share of the partitions.
      await sleep(EVENTS_PROCS > 1 ? 4000 : 500);
      const rows = Array.from({ length: ENVELOPES }, (_, k) => ({
        id: BigInt(10_000_000 + k),
        realmId: org.realm.id,
        users: Array.from({ length: FANOUT }, (_, j) => users[(k * FANOUT + j) % USERS].id),
        event: alertWordsEvent({ alert_words: [randomBytes(4).toString('hex')] }),
        xid: 1n,
      }));
      const expected = ENVELOPES * FANOUT;
      const started = performance.now();
      for (let i = 0; i < rows.length; i += 500)
        await appendToDomainStream(ctx, rows.slice(i, i + 500));
      const published = performance.now() - started;
      const appended = async () => {
        const pipeline = ctx.redis.pipeline();
        for (const id of queues) pipeline.hget(store.keys.queue(id), 'last_id');
        const ids = ((await pipeline.exec()) ?? []).map(([, v]) => Number(v) + 1);
        return ids.reduce((a, b) => a + b, 0);
      };
      const deadline = performance.now() + 300_000;
      let done = 0;
      while ((done = await appended()) < expected && performance.now() < deadline) await sleep(20);
      const seconds = (performance.now() - started) / 1000;
      return {
        eventsProcesses: EVENTS_PROCS,
        users: USERS,
        envelopes: ENVELOPES,
        fanout: FANOUT,
        publishMs: Math.round(published),
        appended: done,
        expected,
        seconds: Math.round(seconds * 100) / 100,
        appendsPerSecond: Math.round(done / seconds),
      };
    } finally {
      await Promise.all(events.map((e) => e.stop()));
    }
  });
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
