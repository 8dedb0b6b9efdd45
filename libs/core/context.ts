import type { Cluster, Redis } from 'ioredis';
import type { PrismaClient } from '../../generated/prisma/client';
import type { Config } from './config';
import type { Logger } from './log';

/** One Redis or a Redis Cluster: the code issues only commands that work on both. */
export type RedisClient = Redis | Cluster;

/**
 * What every domain action and route may use; built once per process (or per test file) by
 * libs/runtime.
 */
export interface AppContext {
  db: PrismaClient;
  redis: RedisClient;
  config: Config;
  log: Logger;
}
