import type { Router } from 'express';
import type { Server } from 'node:http';
import type { AppContext } from '../../libs/core/context';
import { warnUnreachableSubdomains } from '../../libs/domain/realms/ip-host';
import { createApiApp } from './app';

export async function startApiServer(
  ctx: AppContext,
  port = ctx.config.apiPort,
  options: { events?: Router } = {},
): Promise<Server> {
  await warnUnreachableSubdomains(ctx);
  const app = createApiApp(ctx, options);
  return new Promise((resolve) => {
    const server = app.listen(port, ctx.config.bindHost, () => {
      ctx.log.info('boot', 'api listening', { host: ctx.config.bindHost, port });
      resolve(server);
    });
    // Long enough for slow clients, shorter than the load balancer's idle timeout.
    server.keepAliveTimeout = 65_000;
  });
}
