import { at } from '../core/at';

/** How often the limit is judged: long enough that a window usually holds a few answers. */
export const WINDOW_MS = 200;
/** How long congestion lasts with no answer that can show a wait. */
export const UNJUDGED_CONGESTION_MS = 10_000;
/** A limit this low still lets requests through, whose answers tell when the wait is gone. */
const MIN_LIMIT = 4;
const DECREASE = 0.5;
const INCREASE = 1.25;
/** Room above the most requests recently in the works at once, for a burst. */
const HEADROOM = 8;
/**
 * Requests of one route that may come at once. With a 300 ms target a route is costly from 20 ms of
 * own work: full-state registers take 25-37 ms each (typically), sends 5-13 ms on a process that
 * also delivers to polls (`bench/realtime-load.ts`, real clients).
 */
const BURST = 15;
/** A route's cost is the median of this many of its answers in a row. */
const COST_SAMPLES = 15;

/**
 * How many requests a process works on at once, adapted to how fast it answers them. When even
 * the fastest answer of a window took longer than the target, work is waiting in the process (for
 * the event loop, for a connection) rather than being done, and admitting fewer requests is what
 * shortens that wait: the process is congested, holds to its limit, and halves it each such
 * window. Each window answered within the target ends the congestion and lets the limit grow by a
 * quarter, but not past twice what was in the works at once (and some room for a burst), so an
 * overload's first slow window meets a limit near what the process was doing, not its maximum.
 * Until then a burst is admitted up to the maximum: a process answering in time is not refused.
 * Taking the window's fastest answer (CoDel's signal) rather than its slowest keeps one long
 * request, an upload or a large read, from being mistaken for a queue.
 *
 * Only the answers of a cheap route that has answered within the target while the process was not
 * congested judge: a late one then shows a wait. A costly route (full-state registers), one whose
 * burst of `BURST` at once takes longer than the target by its own work, is slow by its own work
 * when its requests come together, as when every client registers again: admitting fewer would
 * get that work done no sooner, only refuse it and have it sent again. A request's own time is
 * its answer time over how many requests were in the works with it on average (`sharedMs` over
 * its life, from `requestMs()`), as requests taking turns on one core. A route is cheap once one of its first `COST_SAMPLES` answers, or from then on the median of that
 * many in a row, took under its share of the target, and stays so (`RouteCost`): answers slowed by
 * a queue, or by deliveries to polls that the limit does not count, never make a send costly. Past
 * the first answers a single one does not count, since a register that found the process idle
 * answers in half its typical time, and judging registers again by it refused hundreds of a herd.
 * A route whose cost is not known yet (registers of a cold process) does not judge until it
 * answers within the target.
 *
 * A window of only answers that do not judge says nothing, as one without answers. Answers in time
 * under a limit do not count: few of a costly route then run at once and answer sooner than the
 * same route offered at once would. A cheap route once in time judges from then on, so a queue
 * does not exempt its own requests, and an overload meets the process's first window. Congestion
 * that no answer has judged for `UNJUDGED_CONGESTION_MS` ends: what is answered is slow by its
 * own work.
 */
export class InFlightLimit {
  limit: number;
  inFlight = 0;
  private windowStart: number;
  private windowFastestMs = Infinity;
  private windowPeak = 0;
  private congested = false;
  private judgedAt: number;
  /** The routes that answered within the target while the process was not congested. */
  private readonly judging = new Set<string>();
  private readonly costs = new Map<string, RouteCost>();
  private sharedMs = 0;
  private sharedAt: number;

  constructor(
    private readonly targetMs: number,
    private readonly maxLimit: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.limit = maxLimit;
    this.windowStart = now();
    this.judgedAt = this.windowStart;
    this.sharedAt = this.windowStart;
  }

  /** Takes a place for a request, or says there is none. */
  tryAdmit(): boolean {
    this.judge();
    if (this.inFlight >= (this.congested ? Math.floor(this.limit) : this.maxLimit)) return false;
    this.requestMs();
    this.inFlight++;
    this.windowPeak = Math.max(this.windowPeak, this.inFlight);
    return true;
  }

  /**
   * The time requests have spent in the works, summed over them: its growth over a request's life
   * is that request's `sharedMs`.
   */
  requestMs(): number {
    const now = this.now();
    this.sharedMs += this.inFlight * (now - this.sharedAt);
    this.sharedAt = now;
    return this.sharedMs;
  }

  /**
   * Gives the place back: `answeredMs` is the time the request took, null if it was abandoned;
   * `route` names what the request did (its method and route), whose answers are alike;
   * `sharedMs`, if known, what `requestMs()` grew by while it was in the works.
   */
  release(answeredMs: number | null, route: string, sharedMs?: number): void {
    this.requestMs();
    this.inFlight--;
    if (answeredMs !== null) {
      if (sharedMs !== undefined && sharedMs > 0) this.learnCost(route, answeredMs, sharedMs);
      if (answeredMs <= this.targetMs && !this.congested) this.judging.add(route);
      if (this.judging.has(route) && !this.costly(route))
        this.windowFastestMs = Math.min(this.windowFastestMs, answeredMs);
    }
    this.judge();
  }

  private learnCost(route: string, answeredMs: number, sharedMs: number): void {
    let cost = this.costs.get(route);
    if (!cost) this.costs.set(route, (cost = new RouteCost()));
    cost.add(answeredMs / Math.max(1, sharedMs / answeredMs), this.targetMs / BURST);
  }

  private costly(route: string): boolean {
    return this.costs.get(route)?.cheap === false;
  }

  private judge(): void {
    const now = this.now();
    if (now - this.windowStart < WINDOW_MS) return;
    // A window without answers that can show a wait says nothing: the limit and congestion stay,
    // congestion for at most UNJUDGED_CONGESTION_MS.
    if (this.windowFastestMs !== Infinity) {
      this.congested = this.windowFastestMs > this.targetMs;
      this.limit = this.congested
        ? Math.max(MIN_LIMIT, this.limit * DECREASE)
        : Math.min(this.maxLimit, this.limit * INCREASE + 1, 2 * this.windowPeak + HEADROOM);
      this.judgedAt = now;
    } else if (now - this.judgedAt >= UNJUDGED_CONGESTION_MS) this.congested = false;
    this.windowStart = now;
    this.windowFastestMs = Infinity;
    this.windowPeak = this.inFlight;
  }
}

/**
 * One route's own times: the last `COST_SAMPLES` of them, and whether the route has shown itself
 * cheap, which it then stays. Until that many have answered, one answer under `costlyFromMs` shows
 * it; from then on, the median of that many in a row.
 */
class RouteCost {
  private readonly recent: number[] = [];
  private next = 0;
  cheap = false;

  add(ownMs: number, costlyFromMs: number): void {
    if (this.cheap) return;
    this.recent[this.next] = ownMs;
    this.next = (this.next + 1) % COST_SAMPLES;
    if (this.recent.length < COST_SAMPLES) {
      this.cheap = ownMs <= costlyFromMs;
      return;
    }
    const median = at(
      this.recent.toSorted((a, b) => a - b),
      COST_SAMPLES >> 1,
    );
    this.cheap = median <= costlyFromMs;
  }
}
