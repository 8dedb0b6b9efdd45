import type { AppContext } from '../core/context';
import { logFailure } from '../stores/failures';
import { startWhenReachable } from '../stores/start-when-reachable';
import { moveJobsToQueueSlots } from './move-to-queue-slots';

/** Again while the process runs: an API replica of the release before may still enqueue there. */
const REPEAT_MS = 5 * 60 * 1000;

/**
 * What a release needs beyond its migrations, run by every worker process when it starts (and
 * then every few minutes), so an upgrade has no manual step. Each step is idempotent and cheap
 * once done.
 *
 * - 0.2.0: BullMQ jobs still pending under the prefix all queues shared in 0.1.0 move to their
 *   queue's own slot (`move-jobs-to-queue-slots`); jobs a worker of the old release holds are
 *   left to it.
 */
export async function runReleaseSteps(ctx: AppContext): Promise<void> {
  const report = await moveJobsToQueueSlots(ctx);
  const moved = Object.values(report).reduce(
    (sum, q) => sum + q.moved + q.scheduledRunsDropped + q.schedulersRemoved,
    0,
  );
  if (moved > 0) {
    ctx.log.info('worker', 'release step: jobs moved to their queue slots', { queues: report });
  }
}

export interface ReleaseSteps {
  /** Settles after the first run (or once it was given up). */
  done: Promise<void>;
  stop(): void;
}

/** Runs the release steps once the stores answer, then every `REPEAT_MS` until stopped. */
export function startReleaseSteps(ctx: AppContext, repeatMs = REPEAT_MS): ReleaseSteps {
  const first = startWhenReachable(ctx, 'release steps', () => runReleaseSteps(ctx));
  const done = first.tried.then(
    () => first.started,
    (err: unknown) => logFailure(ctx.log, 'worker', 'release steps failed', err),
  );
  const timer = setInterval(() => {
    runReleaseSteps(ctx).catch((err: unknown) =>
      logFailure(ctx.log, 'worker', 'release steps failed', err),
    );
  }, repeatMs);
  timer.unref();
  return {
    done,
    stop() {
      first.cancel();
      clearInterval(timer);
    },
  };
}
