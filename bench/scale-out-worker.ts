/**
 * The worker tier of bench/scale-out.ts (SCALE_TIER=worker): 1 api and 1 events process,
 * uncapped, and n capped worker processes, which run the job relay (libs/jobs/relay.ts) and every
 * job. Two saturation searches per replica count, the rate per second in each:
 * - scheduled deliveries: scheduled messages are created through nginx (`POST
 *   /scheduled_messages`, Basic auth, round-robin over the channels and senders) SCALE_LEAD_SECONDS
 *   (2) ahead of their time. The API takes whole seconds, so each second's `rate` messages fall
 *   due together. Lateness: when a member's long-poll sees the message, minus its scheduled time.
 * - outgoing-webhook calls: direct messages to an outgoing-webhook bot whose endpoint is an HTTP
 *   receiver on loopback in this process, answering at once with nothing to post. Latency: the
 *   call's arrival minus the start of the send.
 * A step meets the bounds when the p99 (of lateness, of call latency) is <= SCALE_WORKER_P99_MS
 * (1,000 ms), everything was delivered or called within SCALE_GRACE_SECONDS of its time and
 * nothing twice, and every request was accepted (no 5xx, no refusal).
 */
import type { ClusterOptions, Kind } from '../deploy/local/cluster';
import type { TestRealm } from '../test/factories';
import { makeOutgoingBot, startHttpReceiver, type HttpReceiver } from '../test/worker-factories';
import {
  saturationTable,
  searchSaturation,
  startClients,
  withCappedCluster,
  type CappedCluster,
  type CapSettings,
  type ScaleWorld,
} from './capped-cluster';
import { form, newStats, request, type Client, type Stats } from './realtime-clients';
import { quantile as p, round, sleep, type BenchContext } from './scratch-world';

const env = process.env;
const LEAD_MS = Number(env.SCALE_LEAD_SECONDS ?? 2) * 1000;
const P99_MS = Number(env.SCALE_WORKER_P99_MS ?? 1000);
/** How long a step waits, at most, for the backlog of a step that did not keep up. */
const DRAIN_MS = 20_000;

export interface WorkerScaleOutOptions {
  ctx: BenchContext;
  org: TestRealm;
  world: ScaleWorld;
  replicaCounts: number[];
  caps: CapSettings;
  clusterOf: (n: number, replicas: Record<Kind, number>) => ClusterOptions;
  steps: { seconds: number; graceSeconds: number; maxSteps: number };
  /**
   * The measures searched, each with its first rate per capped replica: scheduled messages, and
   * messages to the bot.
   */
  startRates: Partial<Record<Measure, number>>;
}

/** What the worker tier's scale-out measures, in the order its searches run. */
export const MEASURES = ['scheduled', 'webhook'] as const;
export type Measure = (typeof MEASURES)[number];

interface WorkerStep {
  measure: Measure;
  replicas: number;
  /** Scheduled messages falling due, or messages to the bot sent, per second. */
  rate: number;
  /**
   * Deliveries or calls done per second, from the first time due (or the first send) to the last
   * done, over the step's length at least: the rate while the tier keeps up, its throughput when
   * it falls behind.
   */
  donePerSecond: number;
  /** ms: lateness of the deliveries as clients saw them, or latency of the calls. */
  latency: [number, number];
  /** Items not done within SCALE_GRACE_SECONDS of their time (late, not necessarily lost). */
  late: number;
  /** Items still not done after the drain (DRAIN_MS more): lost, or a backlog the step left. */
  undone: number;
  duplicates: number;
  /** Requests of the step not answered 200 (scheduling, sending); 5xx among them. */
  refused: number;
  serverErrors: number;
  /** Jobs written per message, by job name, and in all. */
  jobs: Record<string, number>;
  jobsPerItem: number;
  cappedCpuMsPerItem: number;
  cappedCpuShare: number;
  throttledPeriods: number;
  loadAverage: number[];
  machineBusyPercent: number;
  meets: boolean;
}

/** Runs both searches for every replica count; returns the tables. */
export async function workerScaleOut(options: WorkerScaleOutOptions): Promise<string> {
  const { ctx, org, replicaCounts, steps, startRates } = options;
  const receiver = await startHttpReceiver();
  try {
    const { bot } = await makeOutgoingBot(ctx, org, org.owner.user, { payloadUrl: receiver.url });
    const results: WorkerStep[] = [];
    for (const n of replicaCounts) {
      results.push(
        ...(await withCappedCluster(
          {
            cluster: options.clusterOf(n, { api: 1, events: 1, worker: n }),
            tier: 'worker',
            caps: options.caps,
            favoured: options.world.serverPids,
          },
          async (capped) => {
            const run = new WorkerSteps({ ...options, capped, receiver, botId: bot.id });
            const clients = await startClients({
              url: capped.cluster.url,
              world: options.world,
              stats: run.stats,
              sentAt: run.sentAt,
              record: (k, ms) => run.delivered(k, ms),
            });
            run.byUser = clients.byUser;
            try {
              await sleep(3000);
              const search = async (measure: Measure, startRate: number) => {
                // A whole step at the first rate, not counted, warms the measure's path under
                // the caps (JIT, pools, keep-alive connections). Five seconds at half the rate
                // were not enough: the first counted step then cost up to a quarter more CPU
                // per item and, failing at the start rate, capped the search below it.
                await run[measure](startRate * n, steps.seconds);
                return searchSaturation(
                  { startRate: startRate * n, maxSteps: steps.maxSteps },
                  (rate) => run[measure](rate, steps.seconds),
                );
              };
              const measured: WorkerStep[] = [];
              for (const measure of MEASURES) {
                const startRate = startRates[measure];
                if (startRate !== undefined) measured.push(...(await search(measure, startRate)));
              }
              return measured;
            } finally {
              clients.stop();
            }
          },
        )),
      );
    }
    return table(results, options);
  } finally {
    await receiver.close();
  }
}

class WorkerSteps {
  readonly stats: Stats = newStats();
  /** Per message k: its scheduled time, or the start of its send (performance clock). */
  readonly sentAt = new Map<number, number>();
  byUser = new Map<number, Client>();
  private k = 0;
  /** Per message k: when it was first delivered to a client, or first called. */
  private readonly doneAt = new Map<number, number>();
  /** Calls per message k. */
  private readonly calls = new Map<number, number>();
  private readonly callMs: number[] = [];

  constructor(
    private readonly run: WorkerScaleOutOptions & {
      capped: CappedCluster;
      receiver: HttpReceiver;
      botId: number;
    },
  ) {
    run.receiver.reply = (req) => {
      this.called(req.body);
      return { status: 200, body: '{"response_not_required": true}' };
    };
  }

  /** A client saw message k for the first time, `ms` after it fell due. */
  delivered(k: number, ms: number): void {
    this.stats.deliveryMs.push(ms);
    if (!this.doneAt.has(k)) this.doneAt.set(k, performance.now());
  }

  private called(body: string): void {
    const now = performance.now();
    let k: number;
    try {
      k = Number(/^m(\d+)m$/.exec((JSON.parse(body) as { data: string }).data)?.[1]);
    } catch {
      return;
    }
    const calls = (this.calls.get(k) ?? 0) + 1;
    this.calls.set(k, calls);
    const sent = this.sentAt.get(k);
    if (calls === 1 && sent !== undefined) {
      this.callMs.push(now - sent);
      this.doneAt.set(k, now);
    }
  }

  /** `rate` scheduled messages fall due per second for `seconds`, each created LEAD_MS ahead. */
  async scheduled(rate: number, seconds: number): Promise<WorkerStep> {
    const { world } = this.run;
    const items = await this.begin(rate, seconds);
    const clock = performance.now() - Date.now();
    const firstDue = Math.ceil((Date.now() + LEAD_MS) / 1000);
    await this.postPaced(items, rate, (k, i) => {
      const due = firstDue + Math.floor(i / rate);
      this.sentAt.set(k, due * 1000 + clock);
      return {
        path: 'scheduled_messages',
        fields: {
          type: 'stream',
          to: String(world.channels[k % world.channels.length].id),
          topic: 'scheduled',
          content: `m${k}m`,
          scheduled_delivery_timestamp: String(due),
        },
      };
    });
    const expected: [Client, number][] = [];
    for (let k = items.first; k <= this.k; k++) {
      for (const userId of world.channels[k % world.channels.length].members) {
        const client = this.byUser.get(userId);
        if (client) expected.push([client, k]);
      }
    }
    const missing = () => expected.filter(([c, k]) => !c.seen.has(k)).length;
    const lastDue = this.sentAt.get(this.k) ?? items.started;
    return this.end({
      measure: 'scheduled',
      rate,
      seconds,
      items,
      from: firstDue * 1000 + clock,
      latencyMs: this.stats.deliveryMs,
      missing,
      graceUntil: lastDue + this.run.steps.graceSeconds * 1000,
      duplicates: () => this.stats.duplicates,
    });
  }

  /** `rate` direct messages to the bot per second for `seconds`, through nginx. */
  async webhook(rate: number, seconds: number): Promise<WorkerStep> {
    const { botId } = this.run;
    const items = await this.begin(rate, seconds);
    this.run.receiver.requests.length = 0;
    await this.postPaced(items, rate, (k) => {
      this.sentAt.set(k, performance.now());
      return {
        path: 'messages',
        fields: { type: 'direct', to: JSON.stringify([botId]), content: `m${k}m` },
      };
    });
    const ks = Array.from({ length: this.k - items.first + 1 }, (_, i) => items.first + i);
    return this.end({
      measure: 'webhook',
      rate,
      seconds,
      items,
      from: items.started,
      latencyMs: this.callMs,
      missing: () => ks.filter((k) => !this.calls.has(k)).length,
      graceUntil: performance.now() + this.run.steps.graceSeconds * 1000,
      duplicates: () => ks.reduce((n, k) => n + Math.max(0, (this.calls.get(k) ?? 0) - 1), 0),
    });
  }

  /**
   * Posts `items.total` API requests at `rate` per second through nginx, request i (message k)
   * as `request(k, i)` says, from the senders in turn; waits for every answer.
   */
  private async postPaced(
    items: Awaited<ReturnType<WorkerSteps['begin']>>,
    rate: number,
    request_: (k: number, i: number) => { path: string; fields: Record<string, string> },
  ): Promise<void> {
    const { world, capped } = this.run;
    const work: Promise<void>[] = [];
    for (let i = 0; i < items.total; i++) {
      await this.pace(items.started, (i * 1000) / rate);
      const k = ++this.k;
      const { path: apiPath, fields } = request_(k, i);
      const sender = world.senders[k % world.senders.length];
      work.push(
        this.accepted(
          request(
            `${capped.cluster.url}/api/v1/${apiPath}`,
            'POST',
            sender.auth,
            world.host,
            form(fields),
          ),
          items.failures,
        ),
      );
    }
    await Promise.all(work);
  }

  private async begin(rate: number, seconds: number) {
    this.stats.deliveryMs.length = 0;
    this.stats.duplicates = 0;
    this.stats.serverErrors = 0;
    this.callMs.length = 0;
    const jobsFrom = await this.lastJobId();
    return {
      first: this.k + 1,
      total: Math.round(rate * seconds),
      started: performance.now(),
      usage: this.run.capped.meter(),
      jobsFrom,
      failures: { refused: 0 },
    };
  }

  private async end(step: {
    measure: Measure;
    rate: number;
    seconds: number;
    items: Awaited<ReturnType<WorkerSteps['begin']>>;
    /** Performance-clock time of the first due time, or of the first send. */
    from: number;
    latencyMs: number[];
    missing: () => number;
    /** Performance-clock time until which a late item still counts as done. */
    graceUntil: number;
    duplicates: () => number;
  }): Promise<WorkerStep> {
    const { first, total, started, usage, jobsFrom, failures } = step.items;
    while (step.missing() > 0 && performance.now() < step.graceUntil) await sleep(50);
    const used = usage();
    const late = step.missing();
    // A backlog must not spill into the next step: wait (bounded) for late items.
    const drain = performance.now() + DRAIN_MS;
    while (step.missing() > 0 && performance.now() < drain) await sleep(100);
    const undone = step.missing();
    const elapsed = (performance.now() - started) / 1000;
    let lastDone = step.from;
    let done = 0;
    for (let k = first; k <= this.k; k++) {
      const at = this.doneAt.get(k);
      if (at === undefined) continue;
      done++;
      lastDone = Math.max(lastDone, at);
    }
    const jobs = await this.jobsSince(jobsFrom, total);
    const latency: [number, number] = [p(step.latencyMs, 50), p(step.latencyMs, 99)];
    const duplicates = step.duplicates();
    const serverErrors = this.stats.serverErrors;
    return {
      measure: step.measure,
      replicas: this.run.capped.capped.length,
      rate: step.rate,
      donePerSecond: round(done / Math.max(step.seconds, (lastDone - step.from) / 1000)),
      latency,
      late,
      undone,
      duplicates,
      refused: failures.refused,
      serverErrors,
      jobs,
      jobsPerItem: round(
        Object.values(jobs).reduce((a, b) => a + b, 0),
        2,
      ),
      cappedCpuMsPerItem: round(used.cpuMs / Math.max(1, total), 3),
      cappedCpuShare: round(used.cpuMs / 1000 / elapsed / this.run.capped.capped.length, 2),
      throttledPeriods: used.throttledPeriods,
      loadAverage: used.loadAverage,
      machineBusyPercent: used.machineBusyPercent,
      meets:
        late === 0 &&
        duplicates === 0 &&
        failures.refused === 0 &&
        serverErrors === 0 &&
        latency[1] <= P99_MS,
    };
  }

  private async pace(started: number, offsetMs: number): Promise<void> {
    const wait = started + offsetMs - performance.now();
    if (wait > 0) await sleep(wait);
  }

  /** Counts a request not answered 200 (and a 5xx or no answer as a server error). */
  private async accepted(
    answer: Promise<{ status: number }>,
    failures: { refused: number },
  ): Promise<void> {
    const status = await answer.then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return;
    failures.refused++;
    if (status >= 500 || status === 0) this.stats.serverErrors++;
  }

  private async lastJobId(): Promise<number> {
    const [row] = await this.run.ctx.db.$queryRaw<{ id: number }[]>`
      SELECT coalesce(max(id), 0)::int AS id FROM job_outbox`;
    return row.id;
  }

  /** Jobs written since `fromId`, per message of the step, by job name. */
  private async jobsSince(fromId: number, messages: number): Promise<Record<string, number>> {
    const rows = await this.run.ctx.db.$queryRaw<{ name: string; n: number }[]>`
      SELECT job_name AS name, count(*)::int AS n FROM job_outbox WHERE id > ${fromId}
      GROUP BY job_name ORDER BY job_name`;
    return Object.fromEntries(rows.map((r) => [r.name, round(r.n / Math.max(1, messages), 2)]));
  }
}

function table(results: WorkerStep[], options: WorkerScaleOutOptions): string {
  const { caps, steps, world, replicaCounts } = options;
  const lines = [
    `SCALE_TIER=worker, ${caps.cpu} CPU per capped replica (cfs period ${caps.periodUs} us), ` +
      `${world.members.length} clients in ${world.channels.length} channels, ` +
      `${world.senders.length} senders, ${steps.seconds} s steps, p99 bound ${P99_MS} ms`,
  ];
  const titles: Record<Measure, [string, string, string]> = {
    scheduled: ['Scheduled deliveries', 'lateness', 'deliveries/s'],
    webhook: ['Outgoing-webhook calls', 'call latency', 'calls/s'],
  };
  for (const measure of MEASURES.filter((m) => options.startRates[m] !== undefined)) {
    const [title, latency, items] = titles[measure];
    const rows = results.filter((r) => r.measure === measure);
    lines.push(
      '',
      `${title}:`,
      '',
      `| replicas | rate (/s) | done/s | ${latency} p50 / p99 (ms) | late, undone | dup | refused (5xx) | jobs / message | capped CPU ms / message | CPU share each | throttled periods | load avg | meets |`,
      '| -: | -: | -: | -: | -: | -: | -: | -: | -: | -: | -: | -: | :-: |',
      ...rows.map(
        (r) =>
          `| ${r.replicas} | ${r.rate} | ${r.donePerSecond} | ${r.latency.join(' / ')} | ${r.late}, ${r.undone} | ${r.duplicates} | ${r.refused} (${r.serverErrors}) | ${r.jobsPerItem} | ${r.cappedCpuMsPerItem} | ${r.cappedCpuShare} | ${r.throttledPeriods} | ${r.loadAverage[0]} | ${r.meets ? 'yes' : 'no'} |`,
      ),
      '',
      ...saturationTable(rows, { replicaCounts, cpu: caps.cpu, unit: '/s', items }),
    );
  }
  return lines.join('\n');
}
