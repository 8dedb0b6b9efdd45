import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { Config } from '../core/config';
import type { Logger } from '../core/log';
import { createLogger } from '../log/create-logger';
import { logNodeWarnings } from '../log/node-warnings';
import { startClusterOpsServer } from './cluster-ops';

/** A worker that exits this soon after its start is crash-looping: the next fork waits longer. */
const QUICK_EXIT_MS = 5_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A worker still running this long after SIGTERM is killed (the workers stop within 10 s). */
const STOP_GRACE_MS = 12_000;
/** The exit status of a process refused by its configuration (sysexits' EX_CONFIG). */
const CONFIG_EXIT = 78;

/**
 * How many processes serve the one port: WEB_CONCURRENCY, or one per two cores the process may
 * use (at least one). `npm start` is the single-machine topology, whose PostgreSQL and Redis share
 * the cores: on two cores, two processes took a third more CPU per delivery than one, at no better
 * latency (docs/benchmarks.md, "Real-client load").
 */
export function processCount(config: Pick<Config, 'webConcurrency'>): number {
  return config.webConcurrency ?? Math.max(1, Math.floor(availableParallelism() / 2));
}

/**
 * Runs `serve` in `processCount(config)` processes that share the listening ports (node:cluster:
 * the primary accepts each connection and hands it to the workers in turn), or in this process
 * when the count is 1 or this is one of those workers.
 *
 * The primary stays thin: it opens no connection to PostgreSQL or Redis and serves no request. It
 * forks the workers, forks another in place of one that died (waiting longer each time one dies
 * soon after its start), passes SIGTERM and SIGINT on and exits once every worker has, and serves
 * the ops port (METRICS_PORT) for them all.
 */
export function runClustered(config: Config, serve: () => Promise<void>): void {
  const count = processCount(config);
  if (count <= 1 || cluster.isWorker) {
    void serve();
    return;
  }
  const log = createLogger({ level: config.logLevel, format: config.logFormat });
  logNodeWarnings(log);
  void runPrimary(config, count, log);
}

async function runPrimary(config: Config, count: number, log: Logger): Promise<void> {
  const startedAt = new Map<Worker, number>();
  // Each worker's place, kept by its replacement: slot 0 is the one that logs store outages.
  const slotOf = new Map<Worker, number>();
  let stopping = false;
  let restartDelayMs = 500;
  const fork = (slot: number) => {
    const worker = cluster.fork({ CHAT_CLUSTER_SLOT: String(slot) });
    startedAt.set(worker, Date.now());
    slotOf.set(worker, slot);
  };

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? 0);
    startedAt.delete(worker);
    if (stopping) {
      if (startedAt.size === 0) process.exit(0);
      return;
    }
    if (code === CONFIG_EXIT) {
      // Every worker would be refused the same way.
      log.error('boot', 'worker refused its configuration; stopping', { pid: worker.process.pid });
      stopping = true;
      for (const other of startedAt.keys()) other.process.kill('SIGTERM');
      if (startedAt.size === 0) process.exit(CONFIG_EXIT);
      return;
    }
    restartDelayMs =
      lived < QUICK_EXIT_MS ? Math.min(restartDelayMs * 2, MAX_RESTART_DELAY_MS) : 500;
    log.error('boot', 'worker exited; starting another', {
      pid: worker.process.pid,
      code,
      signal,
      restartInMs: restartDelayMs,
    });
    const slot = slotOf.get(worker) ?? 0;
    slotOf.delete(worker);
    setTimeout(() => {
      if (!stopping) fork(slot);
    }, restartDelayMs);
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info('boot', 'stopping workers', { signal, workers: startedAt.size });
    for (const worker of startedAt.keys()) worker.process.kill('SIGTERM');
    if (startedAt.size === 0) process.exit(0);
    setTimeout(() => {
      for (const worker of startedAt.keys()) worker.process.kill('SIGKILL');
      process.exit(1);
    }, STOP_GRACE_MS).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  log.info('boot', 'starting workers', { workers: count, pid: process.pid });
  for (let slot = 0; slot < count; slot++) fork(slot);
  await startClusterOpsServer(
    config,
    log,
    () => [...startedAt.keys()],
    () => stopping,
  );
}
