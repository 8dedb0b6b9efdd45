import { markDraining } from '../http/probes';
import { dropDownRedisConnections } from '../redis/connect';
import type { RunningContext } from './create-app-context';
import { logFailure } from '../stores/failures';

/**
 * How long a stop may take before the process exits anyway: under the 10 s an orchestrator waits
 * after SIGTERM (Kubernetes' default grace period), whatever a store does meanwhile. A closing
 * BullMQ worker or a Redis command issued during an outage can wait for minutes.
 */
export const EXIT_DEADLINE_MS = 8000;

/**
 * On SIGTERM or SIGINT: stop taking work, finish what is in flight, close connections, exit;
 * after `deadlineMs` the process exits whatever is still closing, and a second signal exits at
 * once.
 */
export function runUntilSignal(
  ctx: RunningContext,
  stoppers: (() => Promise<void>)[],
  deadlineMs = EXIT_DEADLINE_MS,
): void {
  let stopRequested = false;
  const stop = async (signal: string) => {
    if (stopRequested) {
      ctx.log.warn('boot', 'second signal; exiting now', { signal });
      process.exit(1);
    }
    stopRequested = true;
    markDraining();
    ctx.log.info('boot', 'shutting down', { signal });
    dropDownRedisConnections();
    setTimeout(() => {
      ctx.log.warn('boot', 'shutdown overran its deadline; exiting', { deadlineMs });
      process.exit(1);
    }, deadlineMs).unref();
    const started = Date.now();
    const stopping = stoppers.map((stopper, index) =>
      stopper().finally(() =>
        ctx.log.debug('boot', 'part stopped', { index, ms: Date.now() - started }),
      ),
    );
    for (const result of await Promise.allSettled(stopping)) {
      if (result.status === 'rejected') {
        logFailure(ctx.log, 'boot', 'a part did not stop cleanly', result.reason, 'warn');
      }
    }
    await ctx.close().catch((err: unknown) => {
      logFailure(ctx.log, 'boot', 'connections did not close cleanly', err, 'warn');
    });
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
