import cluster, { type Worker } from 'node:cluster';
import { createServer } from 'node:http';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from '../core/config';
import type { Logger } from '../core/log';
import { podReadiness, readiness } from '../http/probes';
import type { AppContext } from '../core/context';
import { metricsRegistry } from '../metrics';

const PROBE_REQUEST = 'chat:probe-request';
const PROBE_ANSWER = 'chat:probe-answer';
const PROBE_TIMEOUT_MS = 3_000;

type ProbePath = '/readyz' | '/readyz/pod';

interface ProbeRequest {
  type: typeof PROBE_REQUEST;
  id: number;
  path: ProbePath;
}

interface ProbeAnswer {
  type: typeof PROBE_ANSWER;
  id: number;
  ready: boolean;
  body: unknown;
}

/**
 * In a worker of `npm start`'s cluster: the primary serves the ops port, so this process answers
 * its questions over IPC instead: the readiness probes, and its metrics for the primary to sum.
 */
export function answerClusterOps(ctx: AppContext): void {
  AggregatorRegistry.setRegistries([metricsRegistry]);
  // Its constructor installs the worker's metrics responder.
  new AggregatorRegistry();
  process.on('message', (message: ProbeRequest) => {
    if (message?.type !== PROBE_REQUEST) return;
    const probe = message.path === '/readyz' ? readiness(ctx) : podReadiness(ctx);
    void probe.then((state) => {
      const answer: ProbeAnswer = {
        type: PROBE_ANSWER,
        id: message.id,
        ready: state.ready,
        body: { ...state, pid: process.pid },
      };
      process.send?.(answer);
    });
  });
}

/** Asks a worker for its probe answer; a worker silent past PROBE_TIMEOUT_MS is not ready. */
function workerProbe(): (worker: Worker, path: ProbePath) => Promise<ProbeAnswer> {
  let nextId = 0;
  const pending = new Map<number, (answer: ProbeAnswer) => void>();
  cluster.on('message', (_worker, message: ProbeAnswer) => {
    if (message?.type === PROBE_ANSWER) pending.get(message.id)?.(message);
  });
  return (worker, path) =>
    new Promise<ProbeAnswer>((resolve) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve({
          type: PROBE_ANSWER,
          id,
          ready: false,
          body: { pid: worker.process.pid, error: 'no answer' },
        });
      }, PROBE_TIMEOUT_MS);
      pending.set(id, (answer) => {
        clearTimeout(timer);
        pending.delete(id);
        resolve(answer);
      });
      const request: ProbeRequest = { type: PROBE_REQUEST, id, path };
      worker.send(request);
    });
}

/** The cluster's readiness: ready when every live worker is and the primary is not stopping. */
async function clusterReadiness(
  workers: Worker[],
  stopping: () => boolean,
  ask: (worker: Worker) => Promise<ProbeAnswer>,
): Promise<{ ready: boolean; body: Record<string, unknown> }> {
  const live = workers.filter((w) => w.isConnected());
  const answers = await Promise.all(live.map(ask));
  const ready = !stopping() && live.length > 0 && answers.every((a) => a.ready);
  // The stores' state on top, as a single process's probe says it, an unready worker's
  // causes (`postgres`, `redis`, `starting`...) winning; each worker's own answer below.
  const causes = [...answers]
    .sort((a, b) => Number(b.ready) - Number(a.ready))
    .map(({ body }) => {
      const { pid: _pid, ready: _ready, ...cause } = body as Record<string, unknown>;
      return cause;
    });
  const body = {
    ...Object.assign({}, ...causes),
    ready,
    draining: stopping(),
    workers: answers.map((a) => a.body),
  };
  return { ready, body };
}

/**
 * The primary's ops port: `/metrics` summed over the workers (prom-client's cluster aggregation),
 * `/healthz` for the primary, and `/readyz` and `/readyz/pod` ready only when every worker says so.
 */
export async function startClusterOpsServer(
  config: Config,
  log: Logger,
  workers: () => Worker[],
  stopping: () => boolean,
): Promise<void> {
  if (config.metricsPort === null) return;
  const aggregator = new AggregatorRegistry();
  const ask = workerProbe();

  const server = createServer((req, res) => {
    const reply = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'Content-Type': type }).end(body);
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return reply(405, 'text/plain', 'method not allowed\n');
    if (path === '/healthz') return reply(200, 'application/json', '{"status":"ok"}');
    if (path === '/readyz' || path === '/readyz/pod') {
      void clusterReadiness(workers(), stopping, (worker) => ask(worker, path)).then(
        ({ ready, body }) => reply(ready ? 200 : 503, 'application/json', JSON.stringify(body)),
      );
      return;
    }
    if (path === '/metrics') {
      aggregator.clusterMetrics().then(
        (text) => reply(200, aggregator.contentType, text),
        (err: Error) => {
          log.error('boot', 'metrics collection failed', { error: err.message });
          reply(500, 'text/plain', 'metrics collection failed\n');
        },
      );
      return;
    }
    reply(404, 'text/plain', 'not found\n');
  });
  await new Promise<void>((resolve) =>
    server.listen(config.metricsPort!, config.bindHost, resolve),
  );
  server.unref();
  log.info('boot', 'ops listening', {
    host: config.bindHost,
    port: config.metricsPort,
    tier: 'all',
  });
}
