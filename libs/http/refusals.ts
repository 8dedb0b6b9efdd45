import { overloadRefusals } from '../metrics';

/** When a refused client may try again: soon, but not at once, so a crowd spreads out. */
export const RETRY_AFTER_SECONDS = 2;

export type RefusalReason =
  'event_loop_lag' | 'db_pool_waiting' | 'in_flight_limit' | 'db_wait_timeout';

/** Counts a request refused because the process was past capacity (overload.ts). */
export function countRefusal(reason: RefusalReason): void {
  overloadRefusals.inc({ reason });
}
