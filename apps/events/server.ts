import type { Server } from 'node:http';
import type { AppContext } from '../../libs/core/context';
import { startEventsTier, type EventsTier } from '../../libs/events/events-tier';
import { closeServingPolls } from '../../libs/runtime/drain';
import { listenHttp } from '../../libs/http/listen';
import { createEventsApp } from './app';

export interface EventsServer {
  server: Server;
  tier: EventsTier;
  stop(): Promise<void>;
}

export async function startEventsServer(
  ctx: AppContext,
  port = ctx.config.eventsPort,
): Promise<EventsServer> {
  const tier = await startEventsTier(ctx);
  const app = createEventsApp(ctx, tier);
  // Thousands of clients reconnect at once when a replica restarts; with Node's default backlog
  // (511) the kernel drops the rest, and each retries its SYN only after a second or more.
  const server = await listenHttp(ctx, app, port, { backlog: 4096 });
  ctx.log.info('boot', 'events listening', { host: ctx.config.bindHost, port });
  return {
    server,
    tier,
    async stop() {
      await closeServingPolls(server, tier.waker);
      await tier.stop();
    },
  };
}
