import { watchEventsTier, watchOutbox } from '../../libs/metrics';
import { attachPollerCache } from '../../libs/http/principal-cache';
import { configOrExit, createAppContext } from '../../libs/runtime/create-app-context';
import { startOpsServer } from '../../libs/runtime/ops-server';
import { runUntilSignal } from '../../libs/runtime/shutdown';
import { startEventsServer } from './server';

async function main() {
  const ctx = createAppContext(configOrExit(), { watchStores: true });
  const ops = await startOpsServer(ctx, 'events');
  const stopPrincipalFeed = await attachPollerCache(ctx, {
    ttlSeconds: ctx.config.apiAuthCacheSeconds,
    unfedTtlSeconds: ctx.config.eventsAuthCacheSeconds,
  });
  const events = await startEventsServer(ctx);
  watchEventsTier(ctx, events.tier);
  watchOutbox(ctx);
  ops.booted();
  runUntilSignal(ctx, [() => events.stop(), ops.stop, stopPrincipalFeed]);
}

void main();
