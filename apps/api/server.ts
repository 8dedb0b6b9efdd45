import type { Router } from 'express';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AppContext } from '../../libs/core/context';
import { warnUnreachableSubdomains } from '../../libs/domain/realms/ip-host';
import { listenHttp } from '../../libs/http/listen';
import { warmMarkdown } from '../../libs/markdown/warm';
import { createApiApp } from './app';

export interface ApiServerOptions {
  /** The event queue's routes, when one process serves every tier on one origin. */
  events?: Router;
  /** Answers a request before express, returning true, or returns false and leaves it alone. */
  pollsFirst?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

export async function startApiServer(
  ctx: AppContext,
  port = ctx.config.apiPort,
  options: ApiServerOptions = {},
): Promise<Server> {
  await warnUnreachableSubdomains(ctx);
  // Before the first request: the first sends after a start would otherwise pay for it.
  await warmMarkdown();
  const app = createApiApp(ctx, options);
  const pollsFirst = options.pollsFirst;
  const server = await listenHttp(
    ctx,
    pollsFirst ? (req, res) => void (pollsFirst(req, res) || app(req, res)) : app,
    port,
    // Every client of the site reconnects at once after a restart (see apps/events/server.ts).
    { backlog: 4096 },
  );
  ctx.log.info('boot', 'api listening', { host: ctx.config.bindHost, port });
  return server;
}
