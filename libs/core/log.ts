/** Categories keep log lines greppable by subsystem. */
export type LogCategory =
  | 'boot'
  | 'node'
  | 'http'
  | 'auth'
  | 'db'
  | 'domain'
  | 'outbox'
  | 'dispatch'
  | 'queue'
  | 'redis'
  | 'worker'
  | 'email'
  | 'webhook'
  | 'notifications'
  | 'push'
  | 'cli';

export type LogFields = Record<string, unknown>;

/** What code logs through; libs/log makes one on winston. */
export interface Logger {
  error(category: LogCategory, message: string, fields?: LogFields): void;
  warn(category: LogCategory, message: string, fields?: LogFields): void;
  info(category: LogCategory, message: string, fields?: LogFields): void;
  debug(category: LogCategory, message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}
