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
 * Only the answers of a route that has answered within the target while the process was not
 * congested judge: a late one then shows a wait. A route that has not (full-state registers while
 * every client registers again after a restart) is slow by its own work: admitting fewer would get
 * that work done no sooner, only refuse it and have it sent again. A window of only such answers
 * says nothing, as one without answers. Answers in time under a limit do not count: few of a
 * costly route then run at once and answer sooner than the same route offered at once would. A
 * route once in time judges from then on, so a queue does not exempt its own requests, and an
 * overload meets the process's first window. Congestion that no answer has judged for
 * `UNJUDGED_CONGESTION_MS` ends: what is answered is slow by its own work.
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

  constructor(
    private readonly targetMs: number,
    private readonly maxLimit: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.limit = maxLimit;
    this.windowStart = now();
    this.judgedAt = this.windowStart;
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
      if (answeredMs <= this.targetMs && !this.congested) this.judging.add(route);
      if (this.judging.has(route))
        this.windowFastestMs = Math.min(this.windowFastestMs, answeredMs);
    }
    this.judge();
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
