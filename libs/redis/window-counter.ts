import { at } from '../core/at';
import type { AppContext, RedisClient } from '../core/context';
import type { Logger } from '../core/log';
import { execByNode, slotGroups, type BatchCommand } from './by-node';

/** How long a process keeps the requests it counted before adding them to Redis. */
export const SYNC_INTERVAL_MS = 100;

/**
 * Adds ARGV[i + 1] to each counter KEYS[i], which starts a window of ARGV[1] seconds if it does
 * not exist, and returns each count and its window's milliseconds left, flat. Per key it leaves
 * what rate-limiter-flexible's script leaves (the count, expiring with its window), on the same
 * keys, so replicas of the previous release count along during a deploy; but in two commands, not
 * three: the INCRBY that creates a key starts its window, and only a key that existed is asked
 * its time left. A sync runs about once per poll, so that was a command per delivery. One call
 * takes every key of a sync (of one slot on a cluster), not one call each: a poll per user per
 * sync interval made it a script call for nearly every poll.
 */
const ADD_SCRIPT = `
local out = {}
for i = 1, #KEYS do
  local count = redis.call('INCRBY', KEYS[i], ARGV[i + 1])
  local ttl = -1
  if count ~= tonumber(ARGV[i + 1]) then ttl = redis.call('PTTL', KEYS[i]) end
  if ttl == -1 then
    redis.call('EXPIRE', KEYS[i], ARGV[1])
    ttl = 1000 * ARGV[1]
  end
  out[#out + 1] = count
  out[#out + 1] = ttl
end
return out
`;

/** Keys one sync call takes at most: Redis runs nothing else while a script runs. */
const KEYS_PER_CALL = 500;

/** Count and window's milliseconds left, per key, flat. */
type Added = number[];
/** The key count, the keys, the window's seconds, then one increment per key. */
type AddArgs = (string | number)[];
type ScriptRedis = RedisClient & {
  chatWindowAdd(...args: AddArgs): Promise<Added>;
};

/** A counter's increment on its way to Redis. */
interface SyncEntry {
  id: string;
  key: string;
  window: Window;
  n: number;
}

const keyOfEntry = (entry: SyncEntry): string => entry.key;

export interface WindowCount {
  /** Requests in the key's window, the one just counted included. */
  count: number;
  msLeft: number;
}

interface Window {
  /** When the window ends, on this process's clock. */
  endsAt: number;
  /** The count in Redis when it last answered, every process's requests included. */
  synced: number;
  /** Requests counted here since, including those on their way to Redis. */
  unsynced: number;
  /** While the window's first request here waits for Redis's count. */
  opening?: Promise<unknown>;
}

/**
 * Requests per key in fixed windows that every process shares through one Redis counter, without
 * a Redis round trip per request. A key's first request of a window in a process adds itself in
 * Redis and learns the count and the window's end; later ones are counted here, and every
 * SYNC_INTERVAL_MS the counts of all keys touched are added in Redis in one script call (one per
 * slot on a cluster, sent per node), whose answers bring the other processes' counts. So one process's count is exact,
 * and a key used on several processes at once may exceed its limit by what the others counted
 * in one interval, not yet added.
 */
export class WindowCounter {
  private readonly windows = new Map<string, Window>();
  /** Ids with requests not yet added in Redis. */
  private readonly touched = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;
  private nextSweep = 0;
  private failing = false;
  private readonly redis: ScriptRedis;

  constructor(
    redis: RedisClient,
    private readonly keyPrefix: string,
    private readonly windowSeconds: number,
    private readonly log: Logger,
  ) {
    if (typeof (redis as ScriptRedis).chatWindowAdd !== 'function') {
      // The number of keys comes first in each call: one call adds to many counters.
      redis.defineCommand('chatWindowAdd', { lua: ADD_SCRIPT });
    }
    this.redis = redis as ScriptRedis;
  }

  /** Counts one request of `id` in its current window. */
  async add(id: string): Promise<WindowCount> {
    const window = this.windows.get(id);
    if (!window || window.endsAt <= Date.now()) return this.open(id);
    if (window.opening) await window.opening;
    window.unsynced++;
    this.touched.add(id);
    this.schedule();
    return { count: window.synced + window.unsynced, msLeft: window.endsAt - Date.now() };
  }

  /** Adds what is counted here in Redis now (before the process stops). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.syncing;
    if (this.touched.size) await this.sync();
  }

  private async open(id: string): Promise<WindowCount> {
    const window: Window = { endsAt: Infinity, synced: 0, unsynced: 0 };
    const added = this.redis.chatWindowAdd(1, this.key(id), this.windowSeconds, 1);
    window.opening = added;
    this.windows.set(id, window);
    try {
      const [count, msLeft] = await added;
      if (count === undefined || msLeft === undefined) throw new Error('no count from Redis');
      window.synced = count;
      window.endsAt = Date.now() + msLeft;
      window.opening = undefined;
      return { count, msLeft };
    } catch (err) {
      this.windows.delete(id);
      throw err;
    }
  }

  private key(id: string): string {
    return `${this.keyPrefix}:${id}`;
  }

  private schedule(): void {
    if (this.timer || this.syncing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.syncing = this.sync().finally(() => {
        this.syncing = undefined;
        if (this.touched.size) this.schedule();
      });
    }, SYNC_INTERVAL_MS);
    this.timer.unref();
  }

  private async sync(): Promise<void> {
    const now = Date.now();
    const batch: SyncEntry[] = [];
    for (const id of this.touched) {
      const window = this.windows.get(id);
      // A window that ended took its uncounted requests with it.
      if (window && window.endsAt > now) {
        batch.push({ id, key: this.key(id), window, n: window.unsynced });
      }
    }
    this.touched.clear();
    this.sweep(now);
    try {
      const calls = slotGroups(this.redis, batch, keyOfEntry, KEYS_PER_CALL);
      const commands: BatchCommand[] = [];
      for (const call of calls) {
        const keys: string[] = [];
        const increments: number[] = [];
        for (const { key, n } of call) {
          keys.push(key);
          increments.push(n);
        }
        commands.push({
          key: at(keys, 0),
          command: 'chatWindowAdd',
          args: [keys.length, ...keys, this.windowSeconds, ...increments],
        });
      }
      const replies = await execByNode(this.redis, commands);
      const syncedAt = Date.now();
      for (let c = 0; c < calls.length; c++) {
        const added = replies[c] as Added;
        const call = at(calls, c);
        for (let i = 0; i < call.length; i++) {
          const { window, n } = at(call, i);
          window.synced = at(added, 2 * i);
          window.unsynced -= n;
          window.endsAt = syncedAt + at(added, 2 * i + 1);
        }
      }
      this.failing = false;
    } catch (err) {
      // Kept for the next sync; Redis's loss itself is logged by the connection.
      for (const { id } of batch) this.touched.add(id);
      if (!this.failing) {
        this.log.warn('redis', 'rate-limit counts not synced; retrying', {
          error: (err as Error).message,
        });
      }
      this.failing = true;
    }
  }

  /** Forgets the windows that ended, once per window length. */
  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + this.windowSeconds * 1000;
    for (const [id, window] of this.windows) {
      if (window.endsAt <= now) this.windows.delete(id);
    }
  }
}

/** By connection, so that contexts sharing one (a transaction's copy) share the counts too. */
const counters = new WeakMap<RedisClient, Map<string, WindowCounter>>();

/** The counter `name` (windows of `windowSeconds`), made once per Redis connection. */
export function windowCounter(ctx: AppContext, name: string, windowSeconds: number): WindowCounter {
  let byPrefix = counters.get(ctx.redis);
  if (!byPrefix) counters.set(ctx.redis, (byPrefix = new Map()));
  const prefix = `${ctx.config.redisPrefix}ratelimit:${name}`;
  let found = byPrefix.get(prefix);
  if (!found) {
    found = new WindowCounter(ctx.redis, prefix, windowSeconds, ctx.log);
    byPrefix.set(prefix, found);
  }
  return found;
}

/** Adds every count of the connection's counters in Redis (before it closes). */
export async function flushWindowCounters(redis: RedisClient): Promise<void> {
  await Promise.all([...(counters.get(redis)?.values() ?? [])].map((c) => c.flush()));
}
