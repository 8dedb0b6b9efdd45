import type { Queue } from 'bullmq';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { at } from '../core/at';
import type { AppContext } from '../core/context';
import { replicaStats } from '../db/read-replicas';
import { sqlPool } from '../db/sql';
import { DISPATCH_GROUP } from '../events/domain-stream';
import type { EventsTier } from '../events/events-tier';
import { eventKeys } from '../events/keys';

/**
 * Every Prometheus metric of the processes. A process registers only what it runs (`watch*`),
 * so each tier's scrape shows its own metrics; values that live in Redis or PostgreSQL are read
 * at scrape time by `collect()` callbacks, so no hot path pays for them.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** What the scrape-time collectors read, set by the `watch*` function of each part a process runs. */
const sources: {
  events?: { ctx: AppContext; tier: EventsTier; partitions: number[] };
  outbox?: AppContext;
  jobQueues?: Queue[];
  replicas?: AppContext;
} = {};

/**
 * A scrape still answers while Redis or PostgreSQL is down (the readiness probe says so); the
 * series that read them keep their last value.
 */
const keepOnFailure = <T>(work: Promise<T>): Promise<T | null> => work.catch(() => null);

export const httpRequestDuration = new Histogram({
  name: 'chat_http_request_duration_seconds',
  help: 'HTTP request duration by method, matched route and status (long-polls included).',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [],
});

export const pollsWaiting = new Gauge({
  name: 'chat_events_polls_waiting',
  help: 'Long-polls waiting in this events process.',
  registers: [],
  collect() {
    if (sources.events) this.set(sources.events.tier.waker.pollCount);
  },
});

export const queuesAlive = new Gauge({
  name: 'chat_events_queues_alive',
  help: 'Event queues in Redis that garbage collection has not removed.',
  registers: [],
  // Read from Redis or PostgreSQL: every process of a cluster reports the same value.
  aggregator: 'max',
  async collect() {
    if (!sources.events) return;
    const { ctx, partitions } = sources.events;
    const keys = eventKeys(ctx.config.redisPrefix);
    const counts = await keepOnFailure(
      Promise.all(partitions.map((p) => ctx.redis.zcard(keys.access(p)))),
    );
    if (counts) this.set(counts.reduce((a, b) => a + b, 0));
  },
});

export const dispatchLag = new Gauge({
  name: 'chat_dispatch_lag_entries',
  help: 'Domain stream entries not yet dispatched, per partition (not yet delivered to the dispatchers plus delivered but unacknowledged).',
  labelNames: ['partition'] as const,
  registers: [],
  // Read from Redis or PostgreSQL: every process of a cluster reports the same value.
  aggregator: 'max',
  async collect() {
    if (!sources.events) return;
    const { ctx, partitions } = sources.events;
    const keys = eventKeys(ctx.config.redisPrefix);
    const groups = await keepOnFailure(
      Promise.all(
        partitions.map((p) =>
          // No stream yet: nothing was ever published to that partition.
          ctx.redis.xinfo('GROUPS', keys.domainStream(p)).catch(() => [] as unknown[]),
        ),
      ),
    );
    if (!groups) return;
    partitions.forEach((p, i) => {
      const group = (groups[i] as unknown[][]).map(fieldsOf).find((g) => g.name === DISPATCH_GROUP);
      // `lag` is null when Redis cannot tell (entries deleted): report nothing rather than guess.
      if (group && typeof group.lag === 'number') {
        this.set({ partition: String(p) }, group.lag + Number(group.pending ?? 0));
      }
    });
  },
});

export const dispatchLatency = new Histogram({
  name: 'chat_dispatch_latency_seconds',
  help: 'Time from a domain event entering its stream to its append to the queues.',
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [],
});

export const outboxBacklog = new Gauge({
  name: 'chat_outbox_backlog',
  help: 'Committed outbox rows not yet marked published (published rows are marked within 250 ms).',
  registers: [],
  // Read from Redis or PostgreSQL: every process of a cluster reports the same value.
  aggregator: 'max',
  async collect() {
    if (!sources.outbox) return;
    // The partial index on unpublished rows keeps this cheap.
    const result = await keepOnFailure(
      sqlPool(sources.outbox).query<{ n: string }>(
        'SELECT count(*) AS n FROM outbox_events WHERE published_at IS NULL',
      ),
    );
    if (result) this.set(Number(at(result.rows, 0).n));
  },
});

export const jobs = new Gauge({
  name: 'chat_jobs',
  help: 'BullMQ jobs per queue and state (waiting, active, delayed, failed).',
  labelNames: ['queue', 'state'] as const,
  registers: [],
  // Read from Redis or PostgreSQL: every process of a cluster reports the same value.
  aggregator: 'max',
  async collect() {
    const queues = sources.jobQueues ?? [];
    const counts = await keepOnFailure(
      Promise.all(queues.map((q) => q.getJobCounts('waiting', 'active', 'delayed', 'failed'))),
    );
    if (!counts) return;
    queues.forEach((q, i) => {
      for (const [state, n] of Object.entries(at(counts, i))) this.set({ queue: q.name, state }, n);
    });
  },
});

export const webhookAttempts = new Counter({
  name: 'chat_webhook_attempts_total',
  help: 'Outgoing-webhook calls to bots.',
  registers: [],
});

export const webhookFailures = new Counter({
  name: 'chat_webhook_failures_total',
  help: 'Outgoing-webhook calls that did not get a 2xx answer, by reason.',
  labelNames: ['reason'] as const,
  registers: [],
});

export const eventLoopLag = new Gauge({
  name: 'chat_event_loop_lag_seconds',
  help: 'Event-loop delay sustained over the last 300 ms, as the overload guard sees it.',
  registers: [],
  aggregator: 'max',
});

export const inFlightLimitGauge = new Gauge({
  name: 'chat_overload_in_flight_limit',
  help: 'Requests the process works on at once before it refuses more, as its answer times allow.',
  registers: [],
  aggregator: 'min',
});

export const overloadRefusals = new Counter({
  name: 'chat_overload_refusals_total',
  help: 'Requests answered 503 because the process was past capacity, by reason.',
  labelNames: ['reason'] as const,
  registers: [],
});

export const replicaReads = new Counter({
  name: 'chat_db_replica_reads_total',
  help: "Reads that may use a replica, by where they went: a replica, or the primary because none was usable or none had replayed the user's own write.",
  labelNames: ['target'] as const,
  registers: [],
  collect() {
    const stats = sources.replicas && replicaStats(sources.replicas);
    if (!stats) return;
    this.reset();
    for (const [target, count] of Object.entries(stats.reads)) this.inc({ target }, count);
  },
});

export const replicaSkips = new Counter({
  name: 'chat_db_replica_skips_total',
  help: 'Times a replica was passed over for a read, by reason (down, lagging, behind_own_write).',
  labelNames: ['reason'] as const,
  registers: [],
  collect() {
    const stats = sources.replicas && replicaStats(sources.replicas);
    if (!stats) return;
    this.reset();
    for (const [reason, count] of Object.entries(stats.skips)) this.inc({ reason }, count);
  },
});

export const replicaLag = new Gauge({
  name: 'chat_db_replica_lag_seconds',
  help: 'How far each read replica is behind the primary, as this process last saw it.',
  labelNames: ['replica'] as const,
  registers: [],
  aggregator: 'max',
  collect() {
    const stats = sources.replicas && replicaStats(sources.replicas);
    if (!stats) return;
    for (const [url, seconds] of stats.lagSeconds)
      this.set({ replica: new URL(url).host }, seconds);
  },
});

export const storeUp = new Gauge({
  name: 'chat_store_up',
  help: "Whether PostgreSQL and Redis answered the process's last readiness check (1) or not (0).",
  labelNames: ['store'] as const,
  registers: [],
  aggregator: 'min',
});

function register(...metrics: (Counter<string> | Gauge<string> | Histogram<string>)[]): void {
  for (const metric of metrics) {
    const { name } = metric as unknown as { name: string };
    if (!metricsRegistry.getSingleMetric(name)) metricsRegistry.registerMetric(metric);
  }
}

/** The stores' health as the process's store watch (libs/runtime/store-watch.ts) last saw it. */
export function noteStoreHealth(store: 'postgres' | 'redis', up: boolean): void {
  register(storeUp);
  storeUp.set({ store }, up ? 1 : 0);
}

/** Labels every series with the process's tier (api, events, worker or all). */
export function labelTier(tier: string): void {
  metricsRegistry.setDefaultLabels({ tier });
}

/** For the HTTP tiers: the latency histogram that `observeHttpRequest` feeds. */
export function watchHttp(): void {
  register(httpRequestDuration);
}

export function observeHttpRequest(
  method: string,
  route: string,
  status: number,
  seconds: number,
): void {
  httpRequestDuration.observe({ method, route, status: String(status) }, seconds);
}

/** For the HTTP tiers that refuse past capacity (libs/http/overload.ts). */
export function watchOverload(): void {
  register(eventLoopLag, inFlightLimitGauge, overloadRefusals);
}

/**
 * For the events tier: its waiting polls, the latency of each batch it dispatches, and at scrape
 * time the queues in Redis and each partition's consumer-group lag (XINFO GROUPS).
 */
export function watchEventsTier(ctx: AppContext, tier: EventsTier): void {
  sources.events = { ctx, tier, partitions: [...Array(ctx.config.dispatchPartitions).keys()] };
  tier.dispatcher.onDelivered((entryIds) => {
    const now = Date.now();
    for (const id of entryIds) observeDispatchLatency(id, now);
  });
  register(pollsWaiting, queuesAlive, dispatchLag, dispatchLatency);
}

/** Seconds since a domain event entered its stream, from its entry id (`<ms>-<seq>`). */
export function observeDispatchLatency(streamEntryId: string, now = Date.now()): void {
  const ms = Number(streamEntryId.split('-')[0]);
  if (Number.isFinite(ms)) dispatchLatency.observe(Math.max(0, now - ms) / 1000);
}

/** Where the reads that may use a replica went (`DATABASE_REPLICA_URLS`). */
export function watchReadReplicas(ctx: AppContext): void {
  if (ctx.config.databaseReplicaUrls.length === 0) return;
  sources.replicas = ctx;
  register(replicaReads, replicaSkips, replicaLag);
}

/** Committed outbox rows not yet on a domain stream. */
export function watchOutbox(ctx: AppContext): void {
  sources.outbox = ctx;
  register(outboxBacklog);
}

/** For the worker tier: the jobs of every BullMQ queue, and the webhook calls it makes. */
export function watchJobQueues(ctx: AppContext): void {
  // Required here: only processes that run workers watch their queues, and BullMQ is large (the
  // events tier would otherwise hold it in memory for nothing).
  /* eslint-disable @typescript-eslint/no-require-imports -- lazy loads in CommonJS */
  const { jobQueue, QueueName } = require('../jobs') as typeof import('../jobs');
  /* eslint-enable @typescript-eslint/no-require-imports */
  sources.jobQueues = Object.values(QueueName).map((name) => jobQueue(ctx, name));
  register(jobs, webhookAttempts, webhookFailures);
}

/** One call to a bot: `status` for an HTTP answer; otherwise `kind` says why there was none. */
export function countWebhookCall(outcome: { kind: string; status?: number }): void {
  webhookAttempts.inc();
  if (outcome.kind !== 'response') webhookFailures.inc({ reason: outcome.kind });
  else if (outcome.status === undefined || outcome.status < 200 || outcome.status >= 300)
    webhookFailures.inc({ reason: `http_${outcome.status ?? 'unknown'}` });
}

function fieldsOf(flat: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[String(flat[i])] = flat[i + 1];
  return out;
}
