import { writeConflict } from '../core/errors';
import { transactionConflict } from './errors';

/** Runs of a transaction that lost to concurrent ones, before the request gives up. */
export const CONFLICT_ATTEMPTS = 3;
/** What a request that gave up tells its client to wait, in seconds. */
export const CONFLICT_RETRY_AFTER_SECONDS = 1;

/**
 * Runs `attempt` (one whole transaction) again when PostgreSQL aborted it for a deadlock or a
 * serialization failure (40P01, 40001), at most CONFLICT_ATTEMPTS times in all, after a random
 * pause that grows with each run, so that the transactions that collided do not collide again in
 * step. Past that it fails with 503 and Retry-After (`writeConflict`), never a 500.
 */
export async function retryingConflicts<T>(attempt: () => Promise<T>): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      return await attempt();
    } catch (err) {
      if (!transactionConflict(err)) throw err;
      if (run >= CONFLICT_ATTEMPTS) throw writeConflict(CONFLICT_RETRY_AFTER_SECONDS);
      await new Promise((resolve) => setTimeout(resolve, (5 + Math.random() * 20) * 2 ** run));
    }
  }
}
