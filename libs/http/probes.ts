import { Router } from 'express';
import type { AppContext } from '../core/context';
import { sqlPool } from '../db/sql';
import { BOOT_PART, partsStarting } from '../stores/start-when-reachable';
import { redisConnectionError } from '../redis/connect';

export interface Readiness {
  ready: boolean;
  postgres: string;
  redis: string;
  /** Parts of the process still waiting for a store to start (listed only while some wait). */
  starting?: string[];
}

const within = <T>(ms: number, work: Promise<T>): Promise<T> =>
  Promise.race([
    work,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms)),
  ]);

/**
 * Readiness: PostgreSQL and Redis both answer within a second and a half, and every part of the
 * process has started.
 */
export async function readiness(ctx: AppContext): Promise<Readiness> {
  const check = (work: Promise<unknown>) =>
    within(1500, work).then(
      () => 'ok',
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
  const [postgres, redisCheck] = await Promise.all([
    check(sqlPool(ctx).query('SELECT 1')),
    check(ctx.redis.ping()),
  ]);
  const redis = redisCheck === 'ok' ? redisCheck : (redisConnectionError(ctx.redis) ?? redisCheck);
  const waiting = partsStarting();
  return {
    ready: postgres === 'ok' && redis === 'ok' && waiting.length === 0,
    postgres,
    redis,
    ...(waiting.length ? { starting: waiting } : {}),
  };
}

let draining = false;

/** The process stops taking work (SIGTERM): its pod readiness turns false. */
export function markDraining(): void {
  draining = true;
}

export interface PodReadiness {
  ready: boolean;
  /** Its own start-up still runs (it may not listen yet). */
  booting: boolean;
  draining: boolean;
  /** The shared stores, reported but not counted: they are every pod's, not this pod's. */
  shared: Readiness;
}

/**
 * Readiness of this process alone, for orchestrators (Kubernetes' readinessProbe): false only
 * when this pod cannot serve (it is booting or draining). PostgreSQL or Redis being down is every pod's
 * problem: taking every pod out of rotation at once would turn each request's quick error into
 * "no endpoints" and a thundering return; the stores' state is in the body and in alerts.
 */
export async function podReadiness(ctx: AppContext): Promise<PodReadiness> {
  const booting = partsStarting().includes(BOOT_PART);
  return { ready: !booting && !draining, booting, draining, shared: await readiness(ctx) };
}

/**
 * `/healthz` (liveness: the process answers, whatever its dependencies do, so an orchestrator
 * does not restart it for a database outage), `/readyz` (readiness: PostgreSQL and Redis
 * answer; 503 otherwise, so the load balancer sends traffic elsewhere) and `/readyz/pod`
 * (this process can serve, whatever the shared stores do).
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
  router.get('/readyz/pod', async (_req, res) => {
    const state = await podReadiness(ctx);
    res.status(state.ready ? 200 : 503).json(state);
  });
  return router;
}
