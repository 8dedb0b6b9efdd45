import type { LogCategory, LogFields, Logger } from '../core/log';
import { databaseUnreachable } from '../db/errors';
import { redisUnreachable } from '../redis/errors';

/** Whether a failure is PostgreSQL or Redis out of reach (or missing), not the code's fault. */
export const storeUnreachable = (err: unknown): boolean =>
  databaseUnreachable(err) || redisUnreachable(err);

/**
 * Logs a failure at `level`, unless it is a store out of reach: that one is at debug, since the
 * store watch logs the outage once; a line per failed call would be hundreds a minute (a poll
 * loop, a sweeper, each BullMQ worker) and would bury the one line that says what is wrong.
 */
export function logFailure(
  log: Logger,
  category: LogCategory,
  message: string,
  err: unknown,
  level: 'warn' | 'error' = 'error',
  fields: LogFields = {},
): void {
  const error = err instanceof Error ? err.message : String(err);
  log[storeUnreachable(err) ? 'debug' : level](category, message, { ...fields, error });
}
