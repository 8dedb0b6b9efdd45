/** How often the limit is judged: long enough that a window usually holds a few answers. */
export const WINDOW_MS = 200;
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
 */
export class InFlightLimit {
  limit: number;
  inFlight = 0;
  private windowStart: number;
  private windowFastestMs = Infinity;
  private windowPeak = 0;
  private congested = false;

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

  /** Gives the place back: `answeredMs` is the time the request took, null if it was abandoned. */
  release(answeredMs: number | null): void {
    this.inFlight--;
    if (answeredMs !== null) this.windowFastestMs = Math.min(this.windowFastestMs, answeredMs);
    this.judge();
  }

  private judge(): void {
    const now = this.now();
    if (now - this.windowStart < WINDOW_MS) return;
    // A window without answers says nothing: the limit and the congestion stay.
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
