import { Router } from 'express';
import type { AppContext } from '../core/context';
import { sqlPool } from '../db/sql';

export interface Readiness {
  ready: boolean;
  postgres: string;
  redis: string;
}

const within = <T>(ms: number, work: Promise<T>): Promise<T> =>
  Promise.race([
    work,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms)),
  ]);

/** Readiness: PostgreSQL and Redis both answer within a second and a half. */
export async function readiness(ctx: AppContext): Promise<Readiness> {
  const check = (work: Promise<unknown>) =>
    within(1500, work).then(
      () => 'ok',
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
  const [postgres, redis] = await Promise.all([
    check(sqlPool(ctx).query('SELECT 1')),
    check(ctx.redis.ping()),
  ]);
  return { ready: postgres === 'ok' && redis === 'ok', postgres, redis };
}

/**
 * `/healthz` (liveness: the process answers, whatever its dependencies do, so an orchestrator
 * does not restart it for a database outage) and `/readyz` (readiness: PostgreSQL and Redis
 * answer; 503 otherwise, so the load balancer sends traffic elsewhere).
 */
export function probeRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const state = await readiness(ctx);
    res.status(state.ready ? 200 : 503).json(state);
  });
  return router;
}
