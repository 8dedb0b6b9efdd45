import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { ClientEvent } from './outbox';
import { committedBefore } from './snapshot';
import {
  DEFAULT_CAPABILITIES,
  type ClientCapabilities,
  type NarrowTerm,
  type QueuedEvent,
  type QueueInfo,
  type RegistrationSnapshot,
} from './types';

/**
 * Event queues live entirely in Redis, so any `events` replica can serve any queue:
 * - `queue:<id>` hash: owner, filters, capabilities, `last_id` (the last event id handed out);
 * - `queue:<id>:events` stream: entry `0-<n+1>` holds the event with id n (ids start at 0, as in
 *   Zulip), so ids are increasing integers and `XTRIM MINID` acknowledges;
 * - `user-queues:<userId>` and `realm-public-queues:<realmId>` sets: who gets what;
 * - `queue-access` sorted set: last access per queue, for garbage collection.
 * Keys also carry a TTL a minute longer than the idle limit, as a backstop to the GC loop.
 */
export const queueKeys = (prefix: string) => ({
  queue: (id: string) => `${prefix}queue:${id}`,
  events: (id: string) => `${prefix}queue:${id}:events`,
  userQueues: (userId: number) => `${prefix}user-queues:${userId}`,
  realmPublicQueues: (realmId: number) => `${prefix}realm-public-queues:${realmId}`,
  access: () => `${prefix}queue-access`,
  wake: (id: string) => `${prefix}wake:${id}`,
});

const streamId = (eventId: number) => `0-${eventId + 1}`;

/** Appends one event and returns its id, or -1 when the queue no longer exists. */
const APPEND_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local n = redis.call('HINCRBY', KEYS[1], 'last_id', 1)
redis.call('XADD', KEYS[2], '0-' .. (n + 1), 'e', ARGV[1], 'x', ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return n
`;

/** Deletes a queue if it is still idle past the cutoff (a poll may have touched it meanwhile). */
const GC_SCRIPT = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) > tonumber(ARGV[2]) then return 0 end
local owner = redis.call('HMGET', KEYS[2], 'user', 'realm')
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('ZREM', KEYS[1], ARGV[1])
if owner[1] then redis.call('SREM', ARGV[3] .. 'user-queues:' .. owner[1], ARGV[1]) end
if owner[2] then redis.call('SREM', ARGV[3] .. 'realm-public-queues:' .. owner[2], ARGV[1]) end
return 1
`;

type ScriptRedis = Redis & {
  chatQueueAppend(
    queueKey: string,
    eventsKey: string,
    payload: string,
    xid: string,
  ): Promise<number>;
  chatQueueGc(
    accessKey: string,
    queueKey: string,
    eventsKey: string,
    id: string,
    cutoff: number,
    prefix: string,
  ): Promise<number>;
};

function withScripts(redis: Redis): ScriptRedis {
  const r = redis as ScriptRedis;
  if (typeof r.chatQueueAppend !== 'function') {
    redis.defineCommand('chatQueueAppend', { numberOfKeys: 2, lua: APPEND_SCRIPT });
    redis.defineCommand('chatQueueGc', { numberOfKeys: 3, lua: GC_SCRIPT });
  }
  return r;
}

export type NewQueue = Omit<QueueInfo, 'id' | 'lastAccess' | 'snapshot'>;

/** One event for one queue; `xid` is the transaction that wrote it, when it came from the outbox. */
export interface QueueAppend {
  queueId: string;
  event: ClientEvent;
  xid?: string;
}

export class QueueStore {
  private readonly keys: ReturnType<typeof queueKeys>;
  private readonly ttlMs: number;

  constructor(
    private readonly redis: Redis,
    readonly prefix: string,
    readonly idleSeconds: number,
  ) {
    this.keys = queueKeys(prefix);
    this.ttlMs = (idleSeconds + 60) * 1000;
    withScripts(redis);
  }

  async create(input: NewQueue): Promise<QueueInfo> {
    const info: QueueInfo = { ...input, id: randomUUID(), lastAccess: Date.now() };
    const key = this.keys.queue(info.id);
    const multi = this.redis.multi();
    multi.hset(key, {
      user: info.userId,
      realm: info.realmId,
      event_types: JSON.stringify(info.eventTypes),
      narrow: JSON.stringify(info.narrow),
      all_public_streams: info.allPublicStreams ? '1' : '0',
      apply_markdown: info.applyMarkdown ? '1' : '0',
      client_gravatar: info.clientGravatar ? '1' : '0',
      slim_presence: info.slimPresence ? '1' : '0',
      capabilities: JSON.stringify(info.capabilities),
      client: info.client,
      last_access: info.lastAccess,
      last_id: -1,
    });
    multi.pexpire(key, this.ttlMs);
    multi.sadd(this.keys.userQueues(info.userId), info.id);
    if (info.allPublicStreams) multi.sadd(this.keys.realmPublicQueues(info.realmId), info.id);
    multi.zadd(this.keys.access(), info.lastAccess, info.id);
    await multi.exec();
    return info;
  }

  async get(id: string): Promise<QueueInfo | null> {
    const hash = await this.redis.hgetall(this.keys.queue(id));
    return parseQueue(id, hash);
  }

  /** Marks the queue as used now and pushes its expiry back. */
  async touch(id: string): Promise<void> {
    const now = Date.now();
    await this.redis
      .multi()
      .hset(this.keys.queue(id), 'last_access', now)
      .pexpire(this.keys.queue(id), this.ttlMs)
      .pexpire(this.keys.events(id), this.ttlMs)
      .zadd(this.keys.access(), now, id)
      .exec();
  }

  /**
   * Records the database snapshot a registration's initial state was read from: events of
   * transactions it already shows are not handed out (see `read`).
   */
  async setSnapshot(id: string, registration: RegistrationSnapshot): Promise<void> {
    await this.redis.hset(this.keys.queue(id), 'snapshot', JSON.stringify(registration));
  }

  /**
   * Drops acknowledged events (ids up to `lastEventId`) and returns the rest, oldest first,
   * leaving out those whose change the registration's initial state already holds.
   */
  async read(
    id: string,
    lastEventId: number | undefined,
    registration?: RegistrationSnapshot,
  ): Promise<QueuedEvent[]> {
    const key = this.keys.events(id);
    if (lastEventId !== undefined && lastEventId >= 0) {
      await this.redis.xtrim(key, 'MINID', streamId(lastEventId + 1));
    }
    const start = lastEventId !== undefined && lastEventId >= 0 ? streamId(lastEventId + 1) : '-';
    const entries = await this.redis.xrange(key, start, '+');
    const events: QueuedEvent[] = [];
    for (const [entryId, fields] of entries) {
      const event = JSON.parse(fields[1]) as ClientEvent;
      const xid = fields[3];
      if (
        registration &&
        xid &&
        registration.eventTypes.includes(event.type) &&
        committedBefore(registration.snapshot, BigInt(xid))
      ) {
        continue;
      }
      events.push({ ...event, id: Number(entryId.split('-')[1]) - 1 });
    }
    return events;
  }

  /** Appends events to queues in one round trip; returns the new id per append (-1: queue gone). */
  async append(appends: QueueAppend[]): Promise<number[]> {
    if (appends.length === 0) return [];
    const r = withScripts(this.redis);
    const pipeline = r.pipeline() as ReturnType<Redis['pipeline']> & {
      chatQueueAppend(queueKey: string, eventsKey: string, payload: string, xid: string): unknown;
    };
    for (const { queueId, event, xid } of appends) {
      pipeline.chatQueueAppend(
        this.keys.queue(queueId),
        this.keys.events(queueId),
        JSON.stringify(event),
        xid ?? '',
      );
    }
    const woken = new Set<string>();
    appends.forEach(({ queueId }) => woken.add(queueId));
    for (const queueId of woken) pipeline.publish(this.keys.wake(queueId), '1');
    const results = (await pipeline.exec()) ?? [];
    return appends.map((_, i) => {
      const [err, value] = results[i] ?? [null, -1];
      if (err) throw err;
      return Number(value);
    });
  }

  async delete(info: QueueInfo): Promise<void> {
    await this.redis
      .multi()
      .del(this.keys.queue(info.id), this.keys.events(info.id))
      .srem(this.keys.userQueues(info.userId), info.id)
      .srem(this.keys.realmPublicQueues(info.realmId), info.id)
      .zrem(this.keys.access(), info.id)
      .exec();
  }

  /** The live queues of each user (and, for public-channel messages, of the realm's all_public_streams queues). */
  async queuesOf(userIds: number[], publicRealmId: number | null = null): Promise<QueueInfo[]> {
    const lookups = this.redis.pipeline();
    for (const userId of userIds) lookups.smembers(this.keys.userQueues(userId));
    if (publicRealmId !== null) lookups.smembers(this.keys.realmPublicQueues(publicRealmId));
    const ids = new Set<string>();
    for (const [err, members] of (await lookups.exec()) ?? []) {
      if (err) throw err;
      for (const id of members as string[]) ids.add(id);
    }
    if (ids.size === 0) return [];
    const ordered = [...ids];
    const fetches = this.redis.pipeline();
    for (const id of ordered) fetches.hgetall(this.keys.queue(id));
    const hashes = (await fetches.exec()) ?? [];
    const queues: QueueInfo[] = [];
    const stale: string[] = [];
    ordered.forEach((id, i) => {
      const queue = parseQueue(id, (hashes[i]?.[1] ?? {}) as Record<string, string>);
      if (queue) queues.push(queue);
      else stale.push(id);
    });
    if (stale.length) await this.forgetStale(stale, userIds, publicRealmId);
    return queues;
  }

  /** Removes set entries of queues whose keys expired on their own. */
  private async forgetStale(ids: string[], userIds: number[], realmId: number | null) {
    const pipeline = this.redis.pipeline();
    for (const userId of userIds) pipeline.srem(this.keys.userQueues(userId), ...ids);
    if (realmId !== null) pipeline.srem(this.keys.realmPublicQueues(realmId), ...ids);
    pipeline.zrem(this.keys.access(), ...ids);
    await pipeline.exec();
  }

  /** Deletes queues idle for longer than the limit; returns how many went. */
  async collectGarbage(now = Date.now()): Promise<number> {
    const cutoff = now - this.idleSeconds * 1000;
    const r = withScripts(this.redis);
    let removed = 0;
    for (;;) {
      const ids = await this.redis.zrangebyscore(
        this.keys.access(),
        '-inf',
        cutoff,
        'LIMIT',
        0,
        500,
      );
      if (ids.length === 0) return removed;
      for (const id of ids) {
        removed += await r.chatQueueGc(
          this.keys.access(),
          this.keys.queue(id),
          this.keys.events(id),
          id,
          cutoff,
          this.prefix,
        );
      }
      if (ids.length < 500) return removed;
    }
  }
}

function parseQueue(id: string, hash: Record<string, string>): QueueInfo | null {
  if (!hash || !hash.user) return null;
  return {
    id,
    userId: Number(hash.user),
    realmId: Number(hash.realm),
    eventTypes: JSON.parse(hash.event_types) as string[] | null,
    narrow: JSON.parse(hash.narrow) as NarrowTerm[],
    allPublicStreams: hash.all_public_streams === '1',
    applyMarkdown: hash.apply_markdown === '1',
    clientGravatar: hash.client_gravatar === '1',
    slimPresence: hash.slim_presence === '1',
    capabilities: {
      ...DEFAULT_CAPABILITIES,
      ...(JSON.parse(hash.capabilities) as Partial<ClientCapabilities>),
    },
    client: hash.client ?? '',
    lastAccess: Number(hash.last_access),
    ...(hash.snapshot ? { snapshot: JSON.parse(hash.snapshot) as RegistrationSnapshot } : {}),
  };
}
