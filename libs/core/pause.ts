import { setTimeout as wait } from 'node:timers/promises';

/**
 * Resolves after `ms` without keeping the process alive: a stopping process need not wait it out.
 */
export const pause = (ms: number): Promise<void> => wait(ms, undefined, { ref: false });
