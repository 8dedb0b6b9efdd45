import { createServer, type RequestListener, type Server } from 'node:http';
import type { AppContext } from '../core/context';

/**
 * An HTTP server on `port` whose requests must arrive whole, head and body, within
 * HTTP_REQUEST_TIMEOUT_SECONDS, or node answers 408 and closes the connection: a client that
 * trickles its body holds a connection and a parser for that long at most, not for node's
 * default five minutes. The limit covers receiving a request, never answering it: a long-poll's
 * GET has arrived whole once its head has, so it waits for its events as long as it needs.
 */
export async function listenHttp(
  ctx: AppContext,
  handler: RequestListener,
  port: number,
  options: { backlog?: number } = {},
): Promise<Server> {
  const requestTimeout = ctx.config.httpRequestTimeoutSeconds * 1000;
  const server = createServer(
    {
      requestTimeout,
      headersTimeout: requestTimeout,
      // How often node looks for requests past their time: a late one is answered within this
      // much of its limit.
      connectionsCheckingInterval: Math.min(5_000, requestTimeout / 2),
      // Long enough for slow clients, shorter than a load balancer's idle timeout.
      keepAliveTimeout: 65_000,
    },
    handler,
  );
  await new Promise<void>((resolve) => {
    server.listen({ port, host: ctx.config.bindHost, backlog: options.backlog }, resolve);
  });
  return server;
}
