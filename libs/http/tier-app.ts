import express, { type Express } from 'express';
import type { AppContext } from '../core/context';
import { noSniff } from './no-sniff';
import { probeRoutes } from './probes';
import { requestLog } from './request-log';

/**
 * Zulip's clients never revalidate an API's JSON answers (nor does Zulip tag them), and the
 * default weak ETag hashed every body. A function rather than `false`, so that files sent with
 * `res.sendFile` keep the ETag of their size and time.
 */
const noBodyETag = (): undefined => undefined;

/**
 * An express app with what every tier's app starts with: the proxies trusted, flat query
 * strings, no body ETags, the request log, `nosniff`, and the probes.
 */
export function tierApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  // Only the configured proxies may say who the client is (X-Forwarded-For); anyone else could
  // pick their own req.ip.
  app.set('trust proxy', ctx.config.trustedProxies);
  app.set('query parser', 'simple');
  app.set('etag', noBodyETag);
  app.use(requestLog(ctx.log));
  app.use(noSniff);
  app.use(probeRoutes(ctx));
  return app;
}
