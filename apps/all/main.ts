import { startApiServer } from '../api/server';
import { startEventsServer } from '../events/server';
import { jobHandlers } from '../worker/handlers';
import { startWorkers } from '../worker/start-workers';
import { configOrExit, createAppContext } from '../../libs/runtime/context';
import { runUntilSignal } from '../../libs/runtime/shutdown';

/** Every tier in one process, for a single machine; the tiers still share nothing but PostgreSQL and Redis. */
async function main() {
  const ctx = createAppContext(configOrExit());
  const api = await startApiServer(ctx);
  const events = await startEventsServer(ctx);
  const workers = startWorkers(ctx, jobHandlers);
  runUntilSignal(ctx, [
    () => new Promise<void>((resolve) => api.close(() => resolve())),
    () => events.stop(),
    () => workers.close(),
  ]);
}

void main();
