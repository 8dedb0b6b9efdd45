import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Config } from '../core/config';
import type { RedisClient } from '../core/context';

export interface ConnectOptions {
  /** ioredis' retries per command while disconnected (null: forever, as BullMQ workers need). */
  maxRetriesPerRequest?: number | null;
  /** Connect on the first command rather than at once. */
  lazyConnect?: boolean;
  /**
   * On a cluster, keep one subscriber connection per master for SSUBSCRIBE (sharded pub/sub),
   * moved along with the slots when a replica takes over.
   */
  shardedSubscriber?: boolean;
  /**
   * Send the commands issued in one tick of the event loop in one write (ioredis' auto
   * pipelining): thousands of polls woken at once then cost a few writes, not one each.
   */
  autoPipelining?: boolean;
}

/** The one place connections are made: `Redis` at REDIS_URL, or `Cluster` over its seed nodes. */
export function connectRedis(
  config: Pick<Config, 'redisUrl' | 'redisCluster'>,
  options: ConnectOptions = {},
): RedisClient {
  const {
    maxRetriesPerRequest = 2,
    lazyConnect = false,
    shardedSubscriber = false,
    autoPipelining = false,
  } = options;
  const { redisCluster } = config;
  if (!redisCluster) {
    return new Redis(config.redisUrl, {
      maxRetriesPerRequest,
      lazyConnect,
      enableAutoPipelining: autoPipelining,
    });
  }
  const redisOptions: RedisOptions = {
    maxRetriesPerRequest,
    ...(redisCluster.username ? { username: redisCluster.username } : {}),
    ...(redisCluster.password ? { password: redisCluster.password } : {}),
  };
  return new Cluster(redisCluster.nodes, {
    redisOptions,
    lazyConnect,
    shardedSubscribers: shardedSubscriber,
    enableAutoPipelining: autoPipelining,
    // A master that dies leaves its slots unserved until a replica is promoted (cluster-node-timeout
    // plus an election, a few seconds): keep retrying commands meanwhile instead of failing them.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 200,
    retryDelayOnMoved: 50,
    maxRedirections: 64,
  });
}

export const isCluster = (redis: RedisClient): redis is Cluster => redis instanceof Cluster;
