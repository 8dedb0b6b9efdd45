/** How often the limit is judged: long enough that a window usually holds a few answers. */
export const WINDOW_MS = 200;
/** How long a route's fastest answer is remembered (between one and two of these). */
export const ROUTE_MEMORY_MS = 10_000;
/** A limit this low still lets requests through, whose answers tell when the wait is gone. */
const MIN_LIMIT = 4;
const DECREASE = 0.5;
const INCREASE = 1.25;
/** Room above the most requests recently in the works at once, for a burst. */
const HEADROOM = 8;

/**
 * The fastest answer a route gave lately: of the current period and the one before, so an answer
 * counts for between one and two `ROUTE_MEMORY_MS`.
 */
class RouteFastest {
  private current = Infinity;
  private previous = Infinity;
  private periodStart: number;

  constructor(now: number) {
    this.periodStart = now;
  }

  note(answeredMs: number, now: number): void {
    if (now - this.periodStart >= ROUTE_MEMORY_MS) {
      // A period without answers leaves nothing to remember from before it.
      this.previous = now - this.periodStart >= 2 * ROUTE_MEMORY_MS ? Infinity : this.current;
      this.current = Infinity;
      this.periodStart = now;
    }
    this.current = Math.min(this.current, answeredMs);
  }

  get ms(): number {
    return Math.min(this.current, this.previous);
  }
}

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
 * Only the answers of a route that lately answered within the target judge: a late one then shows
 * a wait. A route that has not (full-state registers while every client registers again after a
 * restart) is slow by its own work: admitting fewer would get that work done no sooner, only
 * refuse it and have it sent again. A window of only such answers says nothing, as one without
 * answers. Once late, a route still judges for `ROUTE_MEMORY_MS`, time enough for its queue to
 * make the process congested, which windows without judging answers then keep: a queue does not
 * exempt itself by lasting.
 */
export class InFlightLimit {
  limit: number;
  inFlight = 0;
  private windowStart: number;
  private windowFastestMs = Infinity;
  private windowPeak = 0;
  private congested = false;
  private readonly routes = new Map<string, RouteFastest>();

  constructor(
    private readonly targetMs: number,
    private readonly maxLimit: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.limit = maxLimit;
    this.windowStart = now();
  }

  /** Takes a place for a request, or says there is none. */
  tryAdmit(): boolean {
    this.judge();
    if (this.inFlight >= (this.congested ? Math.floor(this.limit) : this.maxLimit)) return false;
    this.inFlight++;
    this.windowPeak = Math.max(this.windowPeak, this.inFlight);
    return true;
  }

  /**
   * Gives the place back: `answeredMs` is the time the request took, null if it was abandoned;
   * `route` names what the request did (its method and route), whose answers are alike.
   */
  release(answeredMs: number | null, route: string): void {
    this.inFlight--;
    if (answeredMs !== null) {
      const now = this.now();
      let fastest = this.routes.get(route);
      if (!fastest) this.routes.set(route, (fastest = new RouteFastest(now)));
      fastest.note(answeredMs, now);
      if (fastest.ms <= this.targetMs)
        this.windowFastestMs = Math.min(this.windowFastestMs, answeredMs);
    }
    this.judge();
  }

  private judge(): void {
    const now = this.now();
    if (now - this.windowStart < WINDOW_MS) return;
    // A window without answers that can show a wait says nothing: the limit and congestion stay.
    if (this.windowFastestMs !== Infinity) {
      this.congested = this.windowFastestMs > this.targetMs;
      this.limit = this.congested
        ? Math.max(MIN_LIMIT, this.limit * DECREASE)
        : Math.min(this.maxLimit, this.limit * INCREASE + 1, 2 * this.windowPeak + HEADROOM);
    }
    this.windowStart = now;
    this.windowFastestMs = Infinity;
    this.windowPeak = this.inFlight;
  }
}
