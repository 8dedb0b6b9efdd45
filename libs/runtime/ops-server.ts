import cluster from 'node:cluster';
import { createServer } from 'node:http';
import type { AppContext } from '../core/context';
import { NO_SNIFF } from '../http/no-sniff';
import { podReadiness, readiness } from '../http/probes';
import { labelTier, metricsRegistry } from '../metrics';
import { BOOT_PART, startingUntilDone } from '../stores/start-when-reachable';
import { answerClusterOps } from './cluster-ops';

export interface OpsServer {
  /** The process has started all its parts. */
  booted: () => void;
  /** A property, not a method: the entry points hand it on alone to their shutdown lists. */
  stop: () => Promise<void>;
}

/**
 * The operators' listener on METRICS_PORT: Prometheus `/metrics`, `/healthz` and `/readyz`. It is
 * apart from the API's port, so a scrape never goes through the load balancer and the metrics are
 * not public; the worker tier, which serves no HTTP otherwise, has probes here too. In a worker
 * of `npm start`'s cluster the primary serves the port, and this process answers it over IPC.
 *
 * Started first thing, so the probes answer while the rest of the process boots (saying which
 * store is down, if one is): `/readyz` names `boot` as starting until `booted()`.
 */
export async function startOpsServer(ctx: AppContext, tier: string): Promise<OpsServer> {
  const booted = startingUntilDone(BOOT_PART);
  const port = ctx.config.metricsPort;
  if (port === null) return { booted, stop: async () => undefined };
  labelTier(tier);
  if (cluster.isWorker) {
    answerClusterOps(ctx);
    return { booted, stop: async () => undefined };
  }
  const server = createServer((req, res) => {
    const reply = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'Content-Type': type, [NO_SNIFF[0]]: NO_SNIFF[1] }).end(body);
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return reply(405, 'text/plain', 'method not allowed\n');
    if (path === '/healthz') return reply(200, 'application/json', '{"status":"ok"}');
    if (path === '/readyz') {
      void readiness(ctx).then((state) =>
        reply(state.ready ? 200 : 503, 'application/json', JSON.stringify(state)),
      );
      return;
    }
    if (path === '/readyz/pod') {
      void podReadiness(ctx).then((state) =>
        reply(state.ready ? 200 : 503, 'application/json', JSON.stringify(state)),
      );
      return;
    }
    if (path === '/metrics') {
      metricsRegistry.metrics().then(
        (text) => reply(200, metricsRegistry.contentType, text),
        (err: Error) => {
          ctx.log.error('boot', 'metrics collection failed', { error: err.message });
          reply(500, 'text/plain', 'metrics collection failed\n');
        },
      );
      return;
    }
    reply(404, 'text/plain', 'not found\n');
  });
  await new Promise<void>((resolve) => server.listen(port, ctx.config.bindHost, resolve));
  ctx.log.info('boot', 'ops listening', { host: ctx.config.bindHost, port, tier });
  return { booted, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
