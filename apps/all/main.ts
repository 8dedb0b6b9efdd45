import { startApiServer } from '../api/server';
import { eventsHandlers } from '../events/app';
import { jobHandlers } from '../worker/handlers';
import { startWorkers } from '../worker/start-workers';
import { startEventsTier } from '../../libs/events/events-tier';
import {
  watchEventsTier,
  watchJobQueues,
  watchOutbox,
  watchReadReplicas,
} from '../../libs/metrics';
import { attachPrincipalCache } from '../../libs/http/principal-cache';
import type { Config } from '../../libs/core/config';
import { configOrExit, createAppContext } from '../../libs/runtime/create-app-context';
import { closeServingPolls } from '../../libs/runtime/drain';
import { runClustered } from '../../libs/runtime/cluster';
import { startOpsServer } from '../../libs/runtime/ops-server';
import { runUntilSignal } from '../../libs/runtime/shutdown';

/**
 * Every tier in one process, for a single machine. It serves the whole API on API_PORT, the event
 * queue's routes included, because a Zulip client knows one site URL; the tiers still share
 * nothing but PostgreSQL and Redis. WEB_CONCURRENCY such processes (one per two cores by default)
 * share the port, the dispatch partitions and the job queues (libs/runtime/cluster.ts).
 */
async function main(config: Config) {
  const ctx = createAppContext(config, { watchStores: true });
  const ops = await startOpsServer(ctx, 'all');
  // One cache for both tiers' routes, held to the API's rule (served only while the feed runs).
  const stopPrincipalFeed = await attachPrincipalCache(ctx, {
    ttlSeconds: ctx.config.apiAuthCacheSeconds,
    unfedTtlSeconds: 0,
  });
  const events = await startEventsTier(ctx);
  const api = await startApiServer(ctx, ctx.config.apiPort, eventsHandlers(ctx, events));
  const workers = startWorkers(ctx, jobHandlers);
  watchEventsTier(ctx, events);
  watchOutbox(ctx);
  watchReadReplicas(ctx);
  watchJobQueues(ctx);
  ops.booted();
  runUntilSignal(ctx, [
    async () => {
      await closeServingPolls(api, events.waker);
      await events.stop();
    },
    () => workers.close(),
    ops.stop,
    stopPrincipalFeed,
  ]);
}

const config = configOrExit();
runClustered(config, () => main(config));
