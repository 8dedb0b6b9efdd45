import { createServer, type Server } from 'node:http';
import type { AppContext } from '../../libs/core/context';
import { startEventsTier, type EventsTier } from '../../libs/events/events-tier';
import { closeServingPolls } from '../../libs/runtime/drain';
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
  const server = await new Promise<Server>((resolve) => {
    // Thousands of clients reconnect at once when a replica restarts; with Node's default backlog
    // (511) the kernel drops the rest, and each retries its SYN only after a second or more.
    const s = createServer(app).listen({ port, host: ctx.config.bindHost, backlog: 4096 }, () => {
      ctx.log.info('boot', 'events listening', { host: ctx.config.bindHost, port });
      resolve(s);
    });
  });
  // Long-polls outlive the default request timeouts.
  server.requestTimeout = 0;
  server.headersTimeout = 70_000;
  server.keepAliveTimeout = 65_000;
  server.maxConnections = 0;
  return {
    server,
    tier,
    async stop() {
      await closeServingPolls(server, tier.waker);
      await tier.stop();
    },
  };
}
