import { startApiServer } from '../api/server';
import { configOrExit, createAppContext } from '../../libs/runtime/context';
import { runUntilSignal } from '../../libs/runtime/shutdown';

/** Every tier in one process, for a single machine; the tiers still share nothing but PostgreSQL and Redis. */
async function main() {
  const ctx = createAppContext(configOrExit());
  const api = await startApiServer(ctx);
  runUntilSignal(ctx, [() => new Promise<void>((resolve) => api.close(() => resolve()))]);
}

void main();
