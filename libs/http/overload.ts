import type { RequestHandler } from 'express';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { AppContext } from '../core/context';
import { serverOverloaded } from '../core/errors';
import { poolOf } from '../db/client';
import { sqlPoolWaiting } from '../db/sql';
import { eventLoopLag, inFlightLimitGauge, watchOverload } from '../metrics';
import { InFlightLimit } from './in-flight-limit';
import { countRefusal, RETRY_AFTER_SECONDS, type RefusalReason } from './refusals';

/** The histogram's resolution: the delay it reports includes this much of its own timer. */
const RESOLUTION_MS = 10;
const WINDOW_MS = 100;
/**
 * The lag counts once every one of this many windows in a row saw it: a loop that stays behind,
 * as under more work than its core can do, not one long task or garbage collection, after which
 * the loop is on time again.
 */
const SUSTAINED_WINDOWS = 3;

/**
 * How late the event loop runs, as this process's requests meet it: the longest delay of each
 * 100 ms window (`perf_hooks`, or the window's own timer if later), and of those the least over
 * the last three windows, so only a delay that lasts counts. A window's timer runs before the
 * same turn's network input, so a request that waited behind the loop meets the figure that
 * includes its wait.
 */
class EventLoopLag {
  private readonly histogram: IntervalHistogram;
  private readonly windows: number[] = [];
  private timer: NodeJS.Timeout | null = null;
  private users = 0;
  private sampledAt = 0;
  recentMs = 0;

  constructor() {
    this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  }

  start(): void {
    if (this.users++ > 0) return;
    this.histogram.enable();
    this.sampledAt = performance.now();
    this.timer = setInterval(() => this.sample(), WINDOW_MS);
    // Measuring never keeps a process alive.
    this.timer.unref();
  }

  private sample(): void {
    const now = performance.now();
    // The sampling timer's own delay too: when the loop runs one long callback after another,
    // the histogram's timer may not get a turn within the window, this one does.
    const driftMs = now - this.sampledAt - WINDOW_MS;
    this.sampledAt = now;
    const windowMs = Math.max(0, driftMs, this.histogram.max / 1e6 - RESOLUTION_MS);
    this.histogram.reset();
    this.windows.push(windowMs);
    if (this.windows.length > SUSTAINED_WINDOWS) this.windows.shift();
    this.recentMs = this.windows.length < SUSTAINED_WINDOWS ? 0 : Math.min(...this.windows);
    eventLoopLag.set(this.recentMs / 1000);
  }
}

/** One measure per process, whatever number of apps it runs. */
export const eventLoopLagMonitor = new EventLoopLag();

/** Never refused: polls wait on nothing the process is short of, and probes must answer. */
function exempt(method: string, path: string): boolean {
  if (path === '/health' || path.startsWith('/healthz') || path.startsWith('/readyz')) return true;
  return (method === 'GET' || method === 'DELETE') && /^\/(api\/v1|json)\/events$/.test(path);
}

/**
 * What a request did, for the in-flight limit to time it against answers alike: its method and
 * route pattern (set once a route matched), so its size is the route table's.
 */
function routeOf(method: string, baseUrl: string, route: { path?: unknown } | undefined): string {
  return `${method} ${baseUrl}${typeof route?.path === 'string' ? route.path : ''}`;
}

/** Bodies this large take their sender's time to arrive: their answers do not time the process. */
const TIMED_BODY_LIMIT = 1 << 20;

/**
 * Refuses a request with 503, `Retry-After` and Zulip's error envelope, before any of its work,
 * where accepting it would join a wait that grows without bound: more queries waiting for a
 * PostgreSQL connection than OVERLOAD_DB_WAITING_LIMIT, an event loop running behind by more
 * than OVERLOAD_EVENT_LOOP_LAG_MS for 300 ms on end, or more requests in the works than the
 * process answers in OVERLOAD_ANSWER_TARGET_MS (`InFlightLimit`, judged by the answers of cheap
 * routes that can answer within it, not by those of a route slow by its own work). Past its
 * capacity the process then answers every request in bounded time, most accepted and the rest
 * refused, instead of queueing them until they time out (a Prisma transaction that waited two
 * seconds for a connection fails with P2028, which the error handler answers the same way, as the
 * last line).
 */
export function overloadGuard(ctx: AppContext): RequestHandler {
  watchOverload();
  eventLoopLagMonitor.start();
  const { dbWaitingLimit, eventLoopLagMs, answerTargetMs, maxInFlight } = ctx.config.overload;
  const inFlight = new InFlightLimit(answerTargetMs, maxInFlight);
  return (req, res, next) => {
    if (exempt(req.method, req.path)) return next();
    let reason: RefusalReason | null = null;
    if (eventLoopLagMonitor.recentMs > eventLoopLagMs) reason = 'event_loop_lag';
    else if ((poolOf(ctx.db)?.waitingCount ?? 0) + sqlPoolWaiting(ctx) > dbWaitingLimit)
      reason = 'db_pool_waiting';
    else if (Number(req.headers['content-length'] ?? 0) > TIMED_BODY_LIMIT) return next();
    else if (!inFlight.tryAdmit()) reason = 'in_flight_limit';
    inFlightLimitGauge.set(inFlight.limit);
    if (reason === null) {
      const admitted = performance.now();
      const requestMs = inFlight.requestMs();
      res.once('close', () => {
        inFlight.release(
          res.writableFinished ? performance.now() - admitted : null,
          routeOf(req.method, req.baseUrl, req.route),
          inFlight.requestMs() - requestMs,
        );
      });
      return next();
    }
    countRefusal(reason);
    next(serverOverloaded(RETRY_AFTER_SECONDS));
  };
}
