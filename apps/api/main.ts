import { watchReadReplicas } from '../../libs/metrics';
import { attachPrincipalCache } from '../../libs/http/principal-cache';
import { configOrExit, createAppContext } from '../../libs/runtime/create-app-context';
import { startOpsServer } from '../../libs/runtime/ops-server';
import { runUntilSignal } from '../../libs/runtime/shutdown';
import { startApiServer } from './server';

async function main() {
  const ctx = createAppContext(configOrExit(), { watchStores: true });
  const ops = await startOpsServer(ctx, 'api');
  const stopPrincipalFeed = await attachPrincipalCache(ctx, {
    ttlSeconds: ctx.config.apiAuthCacheSeconds,
    unfedTtlSeconds: 0,
  });
  const server = await startApiServer(ctx);
  watchReadReplicas(ctx);
  ops.booted();
  runUntilSignal(ctx, [
    () => new Promise<void>((resolve) => server.close(() => resolve())),
    ops.stop,
    stopPrincipalFeed,
  ]);
}

void main();
