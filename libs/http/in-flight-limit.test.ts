import { InFlightLimit, WINDOW_MS } from './in-flight-limit';

/** Admits `count` requests, refusing none, and answers them all in `ms`. */
function answerAll(limit: InFlightLimit, count: number, ms: number): void {
  for (let i = 0; i < count; i++) expect(limit.tryAdmit()).toBe(true);
  for (let i = 0; i < count; i++) limit.release(ms);
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
    answeredWindow: (count: number, ms: number): number => {
      answerAll(limit, count, ms);
      nextWindow();
      // The window is judged when the next request comes (here one that goes away).
      if (limit.tryAdmit()) limit.release(null);
      return limit.limit;
    },
  };
}

describe('InFlightLimit', () => {
  it('admits up to its limit and refuses the next until a place is given back', () => {
    const { limit } = limitOnClock(300, 5);
    for (let i = 0; i < 5; i++) expect(limit.tryAdmit()).toBe(true);
    expect(limit.tryAdmit()).toBe(false);
    limit.release(10);
    expect(limit.tryAdmit()).toBe(true);
    expect(limit.inFlight).toBe(5);
  });

  it('halves the limit after a window whose fastest answer missed the target, down to 4', () => {
    const { answeredWindow } = limitOnClock(300, 64);
    const seen = Array.from({ length: 6 }, () => answeredWindow(3, 400));
    expect(seen).toEqual([32, 16, 8, 4, 4, 4]);
  });

  it('keeps the limit when one long request is slow but others are answered in time', () => {
    const { limit, answeredWindow } = limitOnClock(300, 64);
    expect(answeredWindow(8, 400)).toBe(32);
    // An upload taking 5 s beside quick answers: the window's fastest answer decides.
    expect(limit.tryAdmit()).toBe(true);
    answerAll(limit, 12, 20);
    limit.release(5_000);
    expect(answeredWindow(0, 0)).toBeGreaterThan(32);
  });

  it('grows by a quarter a window, to at most twice what was in the works plus room', () => {
    const { limit, answeredWindow } = limitOnClock(300, 64);
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
    for (let i = 0; i < 12; i++) limit.release(20);
    nextWindow();
    // In time again: a burst past the limit is admitted.
    for (let i = 0; i < 20; i++) expect(limit.tryAdmit()).toBe(true);
  });

  it('learns nothing from a window without answers', () => {
    const { limit, nextWindow, answeredWindow } = limitOnClock(300, 64);
    expect(answeredWindow(2, 1_000)).toBe(32);
    nextWindow();
    expect(limit.tryAdmit()).toBe(true);
    expect(limit.limit).toBe(32);
  });
});
