import { watchJobQueues } from '../../libs/metrics';
import { configOrExit, createAppContext } from '../../libs/runtime/create-app-context';
import { logFailure } from '../../libs/stores/failures';
import { startOpsServer } from '../../libs/runtime/ops-server';
import { runUntilSignal } from '../../libs/runtime/shutdown';
import { jobHandlers } from './handlers';
import { startWorkers } from './start-workers';

/**
 * The worker tier. On SIGTERM/SIGINT `close()` lets the jobs in flight finish; a worker killed
 * outright loses its job lock and BullMQ's stalled-job check hands the job to another worker.
 */
async function main() {
  const ctx = createAppContext(configOrExit(), { watchStores: true });
  const ops = await startOpsServer(ctx, 'worker');
  // Connected before taking jobs: the first job, maybe a scheduled message due now, does not
  // wait for the database connection. During an outage the worker starts all the same: its
  // jobs fail and are retried, and the store watch reports the outage.
  await ctx.db.$queryRaw`SELECT 1`.catch((err: unknown) =>
    logFailure(ctx.log, 'boot', 'database warm-up failed', err),
  );
  const workers = startWorkers(ctx, jobHandlers);
  watchJobQueues(ctx);
  ops.booted();
  runUntilSignal(ctx, [() => workers.close(), ops.stop]);
}

void main();
