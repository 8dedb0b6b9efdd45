import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Config } from '../core/config';
import type { RedisClient } from '../core/context';
import type { Logger } from '../core/log';

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
  /** Where the connection's loss and return are logged. */
  log?: Logger;
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
    return reportingState(
      new Redis(config.redisUrl, {
        maxRetriesPerRequest,
        lazyConnect,
        enableAutoPipelining: autoPipelining,
      }),
      options.log,
    );
  }
  const redisOptions: RedisOptions = {
    maxRetriesPerRequest,
    ...(redisCluster.username ? { username: redisCluster.username } : {}),
    ...(redisCluster.password ? { password: redisCluster.password } : {}),
  };
  const cluster = new Cluster(redisCluster.nodes, {
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
  return reportingState(cluster, options.log);
}

/**
 * Notes at debug level, once per connection, that Redis cannot be reached and that it can again:
 * a serving process's store watch (libs/runtime/store-watch) logs the outage itself, once for
 * all its connections. Without an error listener ioredis prints a line on the console (not a JSON
 * log line) for every failed reconnection attempt while Redis is down.
 */
const lastErrors = new WeakMap<RedisClient, string>();
/** The process's connections, until they end. */
const open = new Set<RedisClient>();

/**
 * Closes every connection of the process that is down now (on shutdown): the commands waiting
 * on one fail at once instead of after several reconnection attempts, so that what is stopping
 * does not wait for a Redis that is out of reach. Connections that are up are left to close in
 * order.
 */
export function dropDownRedisConnections(): void {
  for (const client of open) if (!redisConnected(client)) client.disconnect();
}

/** Why the connection is down, as its last connection attempt failed (undefined while it is up). */
export const redisConnectionError = (redis: RedisClient): string | undefined =>
  redisConnected(redis) ? undefined : lastErrors.get(redis);

function reportingState(client: RedisClient, log: Logger | undefined): RedisClient {
  let lost = false;
  open.add(client);
  client.on('end', () => open.delete(client));
  client.on('error', (err: Error) => {
    lastErrors.set(client, err.message);
    if (lost) return;
    lost = true;
    log?.debug('redis', 'Redis unreachable; reconnecting', { error: err.message });
  });
  client.on('ready', () => {
    if (!lost) return;
    lost = false;
    log?.debug('redis', 'Redis reachable again');
  });
  return client;
}

export const isCluster = (redis: RedisClient): redis is Cluster => redis instanceof Cluster;

/**
 * Whether the connection is up now. Work that is only worth doing while Redis answers (tidying on
 * shutdown) checks it first: during an outage a command waits through several reconnection
 * attempts, seconds, before it fails.
 */
export const redisConnected = (redis: RedisClient): boolean => redis.status === 'ready';
