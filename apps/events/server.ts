import { createServer, type Server } from 'node:http';
import type { AppContext } from '../../libs/core/context';
import { startEventsTier, type EventsTier } from '../../libs/events/events-tier';
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
    const s = createServer(app).listen(port, ctx.config.bindHost, () => {
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
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tier.stop();
    },
  };
}
