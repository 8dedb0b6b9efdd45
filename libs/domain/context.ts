import type { Config } from '../config';
import type { Db } from '../db/client';
import type { Logger } from '../log';
import type { RedisClient } from '../redis/connect';

/** What every domain action and route may use; built once per process (or per test file). */
export interface AppContext {
  db: Db;
  redis: RedisClient;
  config: Config;
  log: Logger;
}
