import type { Redis } from 'ioredis';
import type { Config } from '../config';
import type { Db } from '../db/client';
import type { Logger } from '../log';

/** What every domain action and route may use; built once per process (or per test file). */
export interface AppContext {
  db: Db;
  redis: Redis;
  config: Config;
  log: Logger;
}
