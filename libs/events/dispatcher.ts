import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext, RedisClient } from '../core/context';
import { perTurnBatch } from '../core/turn-batch';
import { connectRedis, redisConnected } from '../redis/connect';
import { eventKeys, type EventKeys } from './keys';
import { DISPATCH_GROUP, ensureGroup } from './domain-stream';
import { deliverBatches, type DeliveryTarget, type PartitionBatch } from './deliver-batch';
import type { StreamEntry } from './dispatch-plan';
import { QueueDirectory } from './queue-directory';
import type { QueueStore } from './queue-store';
import { LocalWakeups } from './local-wakeups';
import { withScripts } from './lua-scripts';
import type { Waker } from './waker';
import type { FollowedQueues } from './followed-queues';
import { logFailure } from '../stores/failures';
import { partitionOwners } from './partition-owners';

/** A lease not renewed for this long passes to another replica. */
export const LEASE_MS = 5000;
const TICK_MS = 1000;
const BATCH = 500;

/**
 * Moves envelopes from the domain streams into event queues. Users are split over
 * `dispatchPartitions` streams; every `events` replica runs one Dispatcher, and the live replicas
 * share the partitions (`partitionOwners`: a replica's home share, else replica i of n in name
 * order leads the partitions p with p % n == i), each holding a lease per partition it leads. A
 * replica that stops renewing (killed) loses its leases after LEASE_MS and the others take its
 * partitions over. One leader per partition keeps each queue's
 * events in stream order: a queue has one user and a user one partition.
 *
 * Reading goes through a consumer group: an entry stays pending until it is delivered, and a new
 * leader first claims (XAUTOCLAIM) what a crashed one left pending. A queue's `mark` keeps a
 * redelivered entry from being appended twice; a dedupe key per outbox row and partition keeps a
 * row published twice (sweeper after a slow publish) from being delivered twice.
 */
export class Dispatcher {
  private readonly keys: EventKeys;
  private readonly directory: QueueDirectory;
  private readonly loops = new Map<number, PartitionLoop>();
  private running = false;
  private ticker: NodeJS.Timeout | null = null;
  private tickInFlight: Promise<void> = Promise.resolve();
  private readonly observers: ((entryIds: string[]) => void)[] = [];
  private readonly deliveries: JointDeliveries;

  constructor(
    private readonly ctx: AppContext,
    store: QueueStore,
    readonly consumer: string,
    /** The polls of this process, woken directly rather than through their wake-up channel. */
    private readonly localPolls?: Waker,
  ) {
    this.keys = eventKeys(ctx.config.redisPrefix);
    this.directory = new QueueDirectory(store);
    this.deliveries = new JointDeliveries(ctx, {
      keys: this.keys,
      directory: this.directory,
      localPolls: localPolls && new LocalWakeups(localPolls),
    });
  }

  /** Calls `observer` with the ids of the domain-stream entries of every batch delivered. */
  onDelivered(observer: (entryIds: string[]) => void): void {
    this.observers.push(observer);
  }

  /** Partitions this replica leads now. */
  get partitions(): number[] {
    return [...this.loops.entries()]
      .filter(([, l]) => l.leading)
      .map(([p]) => p)
      .sort((a, b) => a - b);
  }

  async start(): Promise<void> {
    for (let p = 0; p < this.ctx.config.dispatchPartitions; p++) {
      await ensureGroup(this.ctx.redis, this.keys.domainStream(p));
    }
    this.running = true;
    await this.tick();
    this.ticker = setInterval(() => {
      this.tickInFlight = this.tickInFlight.then(() => this.tick());
    }, TICK_MS);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.ticker) clearInterval(this.ticker);
    await this.tickInFlight;
    await Promise.all([...this.loops.values()].map((l) => l.stop()));
    this.loops.clear();
    if (redisConnected(this.ctx.redis)) {
      await this.ctx.redis.zrem(this.keys.members(), this.consumer).catch(() => undefined);
    }
  }

  /** Announces this replica, works out its share of the partitions and starts or stops loops. */
  private async tick(): Promise<void> {
    if (!this.running) return;
    try {
      const now = Date.now();
      const [, , live] = (await this.ctx.redis
        .multi()
        .zadd(this.keys.members(), now, this.consumer)
        .zremrangebyscore(this.keys.members(), '-inf', String(now - LEASE_MS))
        .zrange(this.keys.members(), '0', '-1')
        .exec()
        .then((r) => (r ?? []).map(([, v]) => v))) as [unknown, unknown, string[]];
      const owners = partitionOwners(
        live.includes(this.consumer) ? live : [...live, this.consumer],
        this.ctx.config.dispatchPartitions,
      );
      for (let p = 0; p < this.ctx.config.dispatchPartitions; p++) {
        const mine = owners[p] === this.consumer;
        const loop = this.loops.get(p);
        if (mine && !loop) {
          const started = new PartitionLoop(
            this.ctx,
            this.keys,
            p,
            this.consumer,
            this.deliveries,
            (ids) => this.observers.forEach((observe) => observe(ids)),
            this.localPolls?.followed,
          );
          this.loops.set(p, started);
          started.start();
        } else if (!mine && loop) {
          this.loops.delete(p);
          void loop.stop();
        }
      }
      this.directory.prune(now - this.ctx.config.eventQueueIdleSeconds * 1000);
    } catch (err) {
      logFailure(this.ctx.log, 'dispatch', 'dispatch membership tick failed', err);
    }
  }
}

/** Leads one partition while it holds the lease: reads its stream and delivers in batches. */
class PartitionLoop {
  leading = false;
  private running = true;
  private loop: Promise<void> | null = null;
  private readonly reader: RedisClient;
  private readonly streamKey: string;
  private readonly leaseKey: string;
  private renewedAt = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly keys: EventKeys,
    private readonly partition: number,
    private readonly consumer: string,
    private readonly deliveries: JointDeliveries,
    private readonly delivered: (entryIds: string[]) => void,
    /** Told when this loop starts or stops leading: its queues' appends are known only then. */
    private readonly followed?: FollowedQueues,
  ) {
    // XREADGROUP BLOCK holds its connection: each partition reads on its own.
    this.reader = connectRedis(ctx.config, { log: ctx.log });
    this.streamKey = keys.domainStream(partition);
    this.leaseKey = keys.lease(partition);
  }

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop?.catch(() => undefined);
    const wasLeading = this.leading;
    // Before the lease goes: the next leader's appends are not this process's to know.
    this.setLeading(false);
    if (wasLeading && redisConnected(this.ctx.redis)) {
      await withScripts(this.ctx.redis)
        .chatLeaseRelease(this.leaseKey, this.consumer)
        .catch(() => undefined);
    }
    this.reader.disconnect();
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    if (leading) this.followed?.lead(this.partition);
    else this.followed?.unlead(this.partition);
  }

  private async holdLease(): Promise<boolean> {
    const now = Date.now();
    if (this.leading && now - this.renewedAt < TICK_MS) return true;
    const got = await withScripts(this.ctx.redis).chatLeaseRenew(
      this.leaseKey,
      this.consumer,
      LEASE_MS,
    );
    if (Number(got) === 1) this.renewedAt = now;
    return Number(got) === 1;
  }

  private async run(): Promise<void> {
    // Entries read but not acknowledged (ours after an error, or a previous leader's) come first.
    let recover = true;
    while (this.running) {
      try {
        if (!(await this.holdLease())) {
          this.setLeading(false);
          await sleep(TICK_MS);
          continue;
        }
        if (!this.leading) {
          this.setLeading(true);
          recover = true;
          this.ctx.log.info('dispatch', 'leading partition', {
            partition: this.partition,
            consumer: this.consumer,
          });
          await this.claimPending();
        }
        const read = (await this.reader.xreadgroup(
          'GROUP',
          DISPATCH_GROUP,
          this.consumer,
          'COUNT',
          BATCH,
          'BLOCK',
          recover ? 1 : TICK_MS,
          'STREAMS',
          this.streamKey,
          recover ? '0' : '>',
        )) as [string, StreamEntry[]][] | null;
        const entries = read?.[0]?.[1] ?? [];
        if (recover && entries.length === 0) {
          recover = false;
          continue;
        }
        if (entries.length) {
          // Entries left pending go alone: one that keeps failing holds back its partition only.
          await this.deliveries.deliver({ partition: this.partition, entries }, !recover);
          this.delivered(entries.map(([id]) => id));
        }
      } catch (err) {
        recover = true;
        const error = err instanceof Error ? err.message : String(err);
        if (error.startsWith('NOGROUP')) {
          // Redis came back without its data, consumer groups included: nothing would ever be
          // read again. The group is created anew from the stream's start (entries published
          // since the restart are read); clients learn of their lost queues by BAD_EVENT_QUEUE_ID.
          this.ctx.log.warn('dispatch', 'consumer group gone (Redis lost its data); creating it', {
            partition: this.partition,
          });
          await ensureGroup(this.ctx.redis, this.streamKey).catch(() => undefined);
          continue;
        }
        logFailure(this.ctx.log, 'dispatch', 'dispatch failed; retrying', err, 'error', {
          partition: this.partition,
        });
        await sleep(500);
      }
    }
  }

  /** Takes over every entry another consumer of this partition read but did not acknowledge. */
  private async claimPending(): Promise<void> {
    let cursor = '0-0';
    for (;;) {
      const [next] = (await this.ctx.redis.xautoclaim(
        this.streamKey,
        DISPATCH_GROUP,
        this.consumer,
        0,
        cursor,
        'COUNT',
        BATCH,
        'JUSTID',
      )) as [string, string[]];
      if (next === '0-0') return;
      cursor = next;
    }
  }
}

/**
 * Delivers the batches the partition loops read in one turn of the event loop together. A message
 * to a channel of 50 reaches every partition, and the partitions' readers wake at once: delivered
 * one by one, each batch took its own three or four round trips and its own append script, so one
 * message cost 24-32 round trips where a joint delivery takes three or four.
 */
class JointDeliveries {
  private readonly deliverJointly = perTurnBatch(async (batches: PartitionBatch[]) => {
    await this.run(batches);
    return batches.map(() => undefined);
  });

  constructor(
    private readonly ctx: AppContext,
    private readonly target: Omit<DeliveryTarget, 'local'> & { localPolls?: LocalWakeups },
  ) {}

  /** Delivers `batch`, `jointly` with the other batches read in this turn, or alone. */
  deliver(batch: PartitionBatch, jointly: boolean): Promise<void> {
    return jointly ? this.deliverJointly(batch) : this.run([batch]);
  }

  private async run(batches: PartitionBatch[]): Promise<void> {
    const { keys, directory, localPolls } = this.target;
    const local = localPolls?.begin();
    try {
      await deliverBatches(this.ctx, { keys, directory, local }, batches);
    } catch (err) {
      localPolls?.failed(batches.map(({ partition }) => partition));
      throw err;
    } finally {
      local?.end();
    }
  }
}
