import { InFlightLimit, UNJUDGED_CONGESTION_MS, WINDOW_MS } from './in-flight-limit';

/** A route answered within the target when nothing waits. */
const SEND = 'POST /api/v1/messages';
/** A route whose own work takes longer than the target when many run at once. */
const REGISTER = 'POST /api/v1/register';

/** Admits `count` requests, refusing none, and answers them all in `ms`. */
function answerAll(limit: InFlightLimit, count: number, ms: number, route = SEND): void {
  for (let i = 0; i < count; i++) expect(limit.tryAdmit()).toBe(true);
  for (let i = 0; i < count; i++) limit.release(ms, route);
}

/** A limit on a clock the test moves, so each window's answers are the test's own. */
function limitOnClock(targetMs: number, maxLimit: number) {
  let now = 0;
  const limit = new InFlightLimit(targetMs, maxLimit, () => now);
  const nextWindow = () => {
    now += WINDOW_MS;
  };
  return {
    limit,
    nextWindow,
    /** A window in which `count` requests are answered in `ms`, then judged; the new limit. */
    answeredWindow: (count: number, ms: number, route = SEND): number => {
      answerAll(limit, count, ms, route);
      nextWindow();
      // The window is judged when the next request comes (here one that goes away).
      if (limit.tryAdmit()) limit.release(null, route);
      return limit.limit;
    },
    /**
     * A window in which `count` requests of `route` come at once and are answered in `ms`,
     * sharing the process with `others` more in the works all along; the new limit.
     */
    sharedWindow: (count: number, ms: number, route: string, others = 0): number => {
      for (let i = 0; i < count; i++) expect(limit.tryAdmit()).toBe(true);
      const shared = limit.requestMs();
      now += ms;
      for (let i = 0; i < count; i++) limit.release(ms, route, (count + others) * ms);
      expect(limit.requestMs() - shared).toBe(count * ms);
      now += WINDOW_MS;
      if (limit.tryAdmit()) limit.release(null, route);
      return limit.limit;
    },
  };
}

describe('InFlightLimit', () => {
  it('admits up to its limit and refuses the next until a place is given back', () => {
    const { limit } = limitOnClock(300, 5);
    for (let i = 0; i < 5; i++) expect(limit.tryAdmit()).toBe(true);
    expect(limit.tryAdmit()).toBe(false);
    limit.release(10, SEND);
    expect(limit.tryAdmit()).toBe(true);
    expect(limit.inFlight).toBe(5);
  });

  it('halves the limit after a window whose fastest answer missed the target, down to 4', () => {
    const { answeredWindow } = limitOnClock(300, 64);
    // Sends answered in time first: their late answers then show a wait.
    expect(answeredWindow(30, 20)).toBe(64);
    const seen = Array.from({ length: 6 }, () => answeredWindow(3, 400));
    expect(seen).toEqual([32, 16, 8, 4, 4, 4]);
  });

  it('keeps the limit when one long request is slow but others are answered in time', () => {
    const { limit, answeredWindow } = limitOnClock(300, 64);
    answeredWindow(30, 20);
    expect(answeredWindow(8, 400)).toBe(32);
    // An upload taking 5 s beside quick answers: the window's fastest answer decides.
    expect(limit.tryAdmit()).toBe(true);
    answerAll(limit, 12, 20);
    limit.release(5_000, 'POST /api/v1/user_uploads');
    expect(answeredWindow(0, 0)).toBeGreaterThan(32);
  });

  it('grows by a quarter a window, to at most twice what was in the works plus room', () => {
    const { limit, answeredWindow } = limitOnClock(300, 64);
    answeredWindow(30, 20);
    for (let w = 0; w < 4; w++) answeredWindow(2, 1_000);
    expect(limit.limit).toBe(4);
    const seen = Array.from({ length: 12 }, () => answeredWindow(Math.floor(limit.limit), 20));
    expect(seen.slice(0, 3)).toEqual([6, 8.5, 11.625]);
    expect(seen.at(-1)).toBe(64);
    // Used by two requests at a time, it settles at 2 x 2 + 8.
    for (let w = 0; w < 3; w++) answeredWindow(2, 20);
    expect(limit.limit).toBe(12);
  });

  it('admits a burst up to its maximum while answers come in time', () => {
    const { limit, answeredWindow } = limitOnClock(300, 64);
    for (let w = 0; w < 3; w++) answeredWindow(2, 20);
    expect(limit.limit).toBe(12);
    for (let i = 0; i < 64; i++) expect(limit.tryAdmit()).toBe(true);
    expect(limit.tryAdmit()).toBe(false);
  });

  it('holds to the limit once congested, until a window is answered in time', () => {
    const { limit, nextWindow, answeredWindow } = limitOnClock(300, 64);
    expect(answeredWindow(8, 20)).toBe(24);
    expect(answeredWindow(3, 400)).toBe(12);
    for (let i = 0; i < 12; i++) expect(limit.tryAdmit()).toBe(true);
    expect(limit.tryAdmit()).toBe(false);
    for (let i = 0; i < 12; i++) limit.release(20, SEND);
    nextWindow();
    // In time again: a burst past the limit is admitted.
    for (let i = 0; i < 20; i++) expect(limit.tryAdmit()).toBe(true);
  });

  it('learns nothing from a window without answers', () => {
    const { limit, nextWindow, answeredWindow } = limitOnClock(300, 64);
    answeredWindow(30, 20);
    expect(answeredWindow(2, 1_000)).toBe(32);
    nextWindow();
    expect(limit.tryAdmit()).toBe(true);
    expect(limit.limit).toBe(32);
  });

  it('learns nothing from a window of only answers slow by their own work', () => {
    const { limit, answeredWindow } = limitOnClock(300, 64);
    // Twenty full-state registers at a time, each answered after a second of the CPU's work.
    const seen = Array.from({ length: 6 }, () => answeredWindow(20, 1_000, REGISTER));
    expect(seen).toEqual([64, 64, 64, 64, 64, 64]);
    for (let i = 0; i < 64; i++) expect(limit.tryAdmit()).toBe(true);
  });

  it('is judged by the answers that can show a wait, beside answers slow by their own work', () => {
    const { limit, answeredWindow } = limitOnClock(300, 64);
    answeredWindow(30, 20);
    answerAll(limit, 20, 1_000, REGISTER);
    // In time, with twenty in the works at once: 2 x 20 + 8.
    expect(answeredWindow(5, 40)).toBe(48);
    // Sends waiting behind the registers: a queue.
    answerAll(limit, 20, 1_000, REGISTER);
    expect(answeredWindow(5, 400)).toBe(24);
    // A window of registers alone keeps what the sends showed.
    expect(answeredWindow(20, 1_000, REGISTER)).toBe(24);
    expect(answeredWindow(20, 1_000, REGISTER)).toBe(24);
  });

  it('reads a route once in time as queueing when its answers are late', () => {
    const { answeredWindow } = limitOnClock(300, 64);
    expect(answeredWindow(30, 80, REGISTER)).toBe(64);
    expect(answeredWindow(20, 1_000, REGISTER)).toBe(32);
  });

  it('holds to the limit while late answers of a route once in time keep coming', () => {
    const { limit, answeredWindow } = limitOnClock(300, 64);
    answeredWindow(30, 20);
    const windows = (2 * UNJUDGED_CONGESTION_MS) / WINDOW_MS;
    for (let w = 0; w < windows; w++) answeredWindow(3, 700);
    expect(limit.limit).toBe(4);
    for (let i = 0; i < 4; i++) expect(limit.tryAdmit()).toBe(true);
    expect(limit.tryAdmit()).toBe(false);
  });

  it('ends a congestion that no answer has judged for UNJUDGED_CONGESTION_MS', () => {
    const { limit, answeredWindow } = limitOnClock(300, 64);
    answeredWindow(30, 20);
    for (let w = 0; w < 4; w++) answeredWindow(3, 700);
    expect(limit.limit).toBe(4);
    // Only registers answer from then on: nothing shows a wait.
    for (let w = 0; w < UNJUDGED_CONGESTION_MS / WINDOW_MS - 1; w++)
      answeredWindow(4, 1_000, REGISTER);
    for (let i = 0; i < 4; i++) expect(limit.tryAdmit()).toBe(true);
    expect(limit.tryAdmit()).toBe(false);
    for (let i = 0; i < 4; i++) limit.release(1_000, REGISTER);
    answeredWindow(4, 1_000, REGISTER);
    for (let i = 0; i < 64; i++) expect(limit.tryAdmit()).toBe(true);
  });

  it('does not take answers in time under a limit as a sign a route can answer in time', () => {
    const { answeredWindow } = limitOnClock(300, 64);
    answeredWindow(30, 20);
    expect(answeredWindow(3, 700)).toBe(32);
    expect(answeredWindow(3, 700)).toBe(16);
    // Four registers at a time under the limit answer in time; twenty at once would not.
    expect(answeredWindow(4, 250, REGISTER)).toBe(16);
    expect(answeredWindow(16, 1_000, REGISTER)).toBe(16);
    // A send in time: no wait, and twenty registers at once are admitted, none judging.
    expect(answeredWindow(1, 20)).toBe(10);
    expect(answeredWindow(20, 1_000, REGISTER)).toBe(10);
  });

  it('admits bursts of a costly route, even once one has answered in time alone', () => {
    const { limit, sharedWindow } = limitOnClock(300, 64);
    // One register alone: 50 ms of its own work, in time; BURST of them at once take 500 ms.
    sharedWindow(1, 50, REGISTER);
    // Twenty at once take turns on the core: a second each. The limit never falls, and a burst
    // past it is admitted.
    for (let w = 0; w < 6; w++) {
      const before = limit.limit;
      expect(sharedWindow(20, 20 * 50, REGISTER)).toBeGreaterThanOrEqual(before);
    }
    for (let i = 0; i < 64; i++) expect(limit.tryAdmit()).toBe(true);
  });

  it('does not judge a costly route by one answer that found the process idle', () => {
    const { limit, sharedWindow } = limitOnClock(300, 64);
    // Herds of registers: twenty at once, 30 ms of own work each, sharing the core.
    const herd = () => {
      for (let w = 0; w < 3; w++) {
        const before = limit.limit;
        expect(sharedWindow(20, 20 * 30, REGISTER)).toBeGreaterThanOrEqual(before);
      }
    };
    herd();
    // One alone on an idle process: half its typical own work, in time.
    sharedWindow(1, 15, REGISTER);
    herd();
    for (let i = 0; i < 64; i++) expect(limit.tryAdmit()).toBe(true);
  });

  it('is judged by cheap answers waiting behind a costly route', () => {
    const { sharedWindow } = limitOnClock(300, 64);
    sharedWindow(1, 50, REGISTER);
    const before = sharedWindow(4, 10, SEND);
    // Two sends beside twenty registers, late: a queue.
    expect(sharedWindow(2, 400, SEND, 20)).toBeLessThanOrEqual(before / 2);
  });

  it('holds sends to the target while a saturated loop slows them, few at a time or many', () => {
    const { limit, sharedWindow } = limitOnClock(300, 64);
    expect(sharedWindow(4, 10, SEND)).toBe(16);
    // The late sends shared the loop with few counted requests (the rest was polls' deliveries):
    // their own time looks long, but the route's cost is the least seen.
    expect(sharedWindow(2, 400, SEND)).toBeLessThanOrEqual(8);
    expect(sharedWindow(4, 1_200, SEND, 36)).toBe(4);
    for (let i = 0; i < 4; i++) expect(limit.tryAdmit()).toBe(true);
    expect(limit.tryAdmit()).toBe(false);
  });
});
