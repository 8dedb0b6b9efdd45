/**
 * A worker process for multi-process tests: the real handlers with a short job lock, so a test
 * that SIGKILLs it sees the job handed to another worker quickly. Environment as for the app.
 */
import { jobHandlers } from '../apps/worker/handlers';
import { startWorkers } from '../apps/worker/start-workers';
import { loadConfig } from '../libs/config';
import { createAppContext } from '../libs/runtime/context';

const ctx = createAppContext(loadConfig(process.env), { maxConnections: 3 });
const lockMs = Number(process.env.TEST_WORKER_LOCK_MS ?? 1000);
const workers = startWorkers(ctx, jobHandlers, {
  lockDurationMs: lockMs,
  stalledIntervalMs: Math.max(250, Math.floor(lockMs / 2)),
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void workers
    .close()
    .then(() => ctx.close())
    .then(() => process.exit(0));
});
