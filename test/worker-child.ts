/**
 * A worker process for multi-process tests: the real handlers with a short job lock, so a test
 * that SIGKILLs it sees the job handed to another worker quickly. Environment as for the app.
 */
import { jobHandlers } from '../apps/worker/handlers';
import { startWorkers } from '../apps/worker/start-workers';
import { loadConfig } from '../libs/config/load-config';
import { deliverScheduledMessage } from '../libs/domain/scheduled-messages/deliver-scheduled-message';
import { createAppContext } from '../libs/runtime/create-app-context';

const ctx = createAppContext(loadConfig(process.env), { maxConnections: 3 });
const lockMs = Number(process.env.TEST_WORKER_LOCK_MS ?? 1000);

async function main() {
  // As apps/worker/main.ts: connected before taking jobs.
  await ctx.db.$queryRaw`SELECT 1`;
  // A timing test hands each process one delivery to make first, so the delivery it measures
  // finds the process warm (a query's first run pays for a connection and its plan).
  const warmUp = process.env.TEST_WORKER_WARM_UP_SCHEDULED_ID;
  if (warmUp) {
    await deliverScheduledMessage(
      ctx,
      { scheduledMessageId: Number(warmUp) },
      { isLastAttempt: false },
    );
  }
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
}

void main();
