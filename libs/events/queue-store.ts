import { randomUUID } from 'node:crypto';
import type { AppContext, RedisClient } from '../core/context';
import {
  addCommand,
  execByNode,
  slotGroups,
  slotIndexGroups,
  type BatchCommand,
  type RedisCommand,
} from '../redis/by-node';
import { eventKeys, partitionOf, type EventKeys } from './keys';
import type { ClientEvent } from '../protocol/event-catalogue';
import {
  DEFAULT_CAPABILITIES,
  type ClientCapabilities,
  type QueueNarrowTerm,
  type QueueSettings,
} from '../protocol/queue';
import { DistinctTexts } from './distinct-texts';
import { shownAtRegistration } from './wake-protocol';
import { queueIdIn } from './partition-owners';
import type { QueuedEvent, QueueInfo, RegistrationSnapshot } from './queue-info';

/**
 * Event queues live entirely in Redis, so any `events` replica can serve any queue (key layout in
 * keys.ts). A queue's hash holds its settings, which never change after registration, plus
 * `last_id` (the last event id handed out), `first_id` (the id of the oldest event still held),
 * `mark` (the last domain-stream entry delivered to it, so a redelivered entry is not appended
 * twice), `waiter` (the wake-up channel of the process where a poll waits, '' when none) and `snapshot`. The
 * events themselves are a list, oldest first, each element `<xid> <event JSON>` (xid: the writing
 * transaction, or empty), so the event with id n is element n - first_id. A list, not a stream:
 * a stream preallocates a 4 KB node for its first entry, four times a message event's size, and
 * the page faults of 10,000 such nodes at once made the first message to 10,000 queues spend
 * 120 ms more in Redis. Queue keys carry a TTL a minute longer than the idle limit, pushed back by
 * every poll, as a backstop to the garbage collector.
 */

/**
 * Polls of many queues in one script call (one per slot on a cluster), each as one poll alone
 * would run: checks the owner, marks the queue used, drops acknowledged events, reads the rest
 * and, when there are none and the caller will wait, records its wake-up channel. A queue's hash
 * fields change in one HSET. The keys' TTL is pushed back when the last push is older than the
 * refresh interval (`ttl_at`), not on every poll: the TTL is only a backstop a minute longer than
 * the idle limit, and the two PEXPIREs were a quarter of the commands a poll ran. A call costs
 * Redis more than the commands it runs, so the polls that arrive together share one.
 * KEYS: per queue, its hash and its event list. ARGV: now, TTL ms, TTL refresh interval ms, then
 * per queue: user id, last acknowledged event id ('' for none), wake-up channel ('' when not
 * waiting).
 * Returns per queue {-1} (no queue, or one registered before event lists), {-2} (another user's
 * queue), {-3, error} (its commands failed; the other queues' polls stand) or
 * {0, snapshot, elements, first id, last id}.
 */
const POLL_SCRIPT = `
local now, ttl, refresh = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local function poll(hash, list, user, acked, waiter)
  local fields = redis.call('HMGET', hash, 'user', 'first_id', 'last_id', 'snapshot', 'ttl_at')
  if not fields[1] or not fields[2] then return {-1} end
  if fields[1] ~= user then return {-2} end
  local changes = {'last_access', ARGV[1]}
  if not fields[5] or now - tonumber(fields[5]) >= refresh then
    redis.call('PEXPIRE', hash, ttl)
    redis.call('PEXPIRE', list, ttl)
    changes[#changes + 1] = 'ttl_at'
    changes[#changes + 1] = ARGV[1]
  end
  local first, last = tonumber(fields[2]), tonumber(fields[3])
  if acked ~= '' then
    local upto = math.min(tonumber(acked), last)
    if upto >= first then
      redis.call('LTRIM', list, upto - first + 1, -1)
      first = upto + 1
      changes[#changes + 1] = 'first_id'
      changes[#changes + 1] = first
    end
  end
  -- The list holds the events first..last: a re-poll that acknowledged all of them reads nothing.
  local elements = {}
  if first <= last then elements = redis.call('LRANGE', list, 0, -1) end
  if #elements == 0 and waiter ~= '' then
    changes[#changes + 1] = 'waiter'
    changes[#changes + 1] = waiter
  end
  redis.call('HSET', hash, unpack(changes))
  return {0, fields[4] or '', elements, first, last}
end
local replies = {}
for q = 1, #KEYS / 2 do
  local a = 3 * q + 1
  local ok, reply = pcall(poll, KEYS[2 * q - 1], KEYS[2 * q], ARGV[a], ARGV[a + 1], ARGV[a + 2])
  if not ok then reply = {-3, type(reply) == 'table' and reply.err or tostring(reply)} end
  replies[q] = reply
end
return replies
`;

/**
 * Appends, for each of several queues in turn, the events one domain-stream entry produced for it.
 * A queue is fed by one partition, in stream order, so an entry at or below the queue's `mark` was
 * appended already (a dispatcher redelivering after a crash) and is skipped; marks are compared as
 * strings, in the fixed-width form of `markOf`. Each stored element comes once however many queues
 * receive it (a message to a big channel is one text for most of them). A list just created gets
 * the queue's TTL. Four commands a queue at most: Redis runs this for 10,000 queues at once.
 * KEYS: queue hash and event list of each queue. ARGV: TTL ms, the number of distinct elements K,
 * the K elements, then per queue: mark ('' for none), count n, n indexes (0-based) into the
 * elements.
 * Returns per queue {last id, waiter channel or ''}; last id -1: no such queue, -2: already
 * appended.
 */
const APPEND_SCRIPT = `
local at = tonumber(ARGV[2]) + 3
local out = {}
for q = 1, #KEYS, 2 do
  local hash, events = KEYS[q], KEYS[q + 1]
  local mark, n = ARGV[at], tonumber(ARGV[at + 1])
  local first = at + 2
  at = first + n
  local last, waiter = -1, ''
  local fields = redis.call('HMGET', hash, 'last_id', 'first_id', 'mark', 'waiter')
  if fields[1] and fields[2] then
    if mark ~= '' and fields[3] and mark <= fields[3] then
      last = -2
    else
      local elements = {}
      for i = first, first + n - 1 do elements[#elements + 1] = ARGV[tonumber(ARGV[i]) + 3] end
      if redis.call('RPUSH', events, unpack(elements)) == n then
        redis.call('PEXPIRE', events, ARGV[1])
      end
      last = tonumber(fields[1]) + n
      waiter = fields[4] or ''
      if mark ~= '' then redis.call('HSET', hash, 'last_id', last, 'mark', mark, 'waiter', '')
      else redis.call('HSET', hash, 'last_id', last, 'waiter', '') end
    end
  end
  out[#out + 1] = last
  out[#out + 1] = waiter
end
return out
`;

/**
 * A domain-stream entry id (`<ms>-<seq>`) as a queue's mark: fixed width, so that marks compare as
 * strings in the order of their entries.
 */
export const markOf = (entryId: string): string => {
  const [ms, seq] = entryId.split('-');
  return `${ms.padStart(15, '0')}-${(seq ?? '0').padStart(20, '0')}`;
};

/**
 * How often polls push back a queue's TTL (`idleSeconds` + 60 s): the key then lives at least
 * `idleSeconds` + 30 s past its last poll, still past the garbage collector's cutoff.
 */
const TTL_REFRESH_MS = 30_000;

/** Queues one append script takes at most: Redis runs nothing else while a script runs. */
const QUEUES_PER_SCRIPT = 200;
/** Polls one poll script serves at most. */
const POLLS_PER_SCRIPT = 100;
/** Parsed registration snapshots a store keeps, about 20,000 queues' worth of memory. */
const MAX_REGISTRATIONS = 20_000;

/** A poll waiting for its script call (see `QueueStore.poll`). */
interface PendingPoll {
  queueId: string;
  userId: number;
  acked: number | '';
  waiter: string;
  answer(reply: PollReply): void;
  fail(err: unknown): void;
}

/**
 * Deletes a queue if it has been idle past the cutoff and returns {'gone', owner, realm} for the
 * caller to clean the partition's sets; a queue polled since returns {'kept', last access}, which
 * the caller writes to the access index (polls leave the index alone: one command fewer each).
 * KEYS: queue hash, event list. ARGV: cutoff.
 */
const GC_SCRIPT = `
local fields = redis.call('HMGET', KEYS[1], 'last_access', 'user', 'realm')
if fields[1] and tonumber(fields[1]) > tonumber(ARGV[1]) then return {'kept', fields[1]} end
redis.call('DEL', KEYS[1], KEYS[2])
return {'gone', fields[2] or '', fields[3] or ''}
`;

/** One queue's part of a poll script's reply (see POLL_SCRIPT). */
type PollReply = [number, string?, string[]?, number?, number?];

type ScriptRedis = RedisClient & {
  chatQueueAppend(...args: (string | number)[]): Promise<(number | string)[]>;
  chatQueueGc(queueKey: string, eventsKey: string, cutoff: number): Promise<string[]>;
};

function withScripts(redis: RedisClient): ScriptRedis {
  const r = redis as ScriptRedis;
  if (typeof r.chatQueueAppend !== 'function') {
    // The number of keys comes first in each call: one call polls or appends to many queues.
    redis.defineCommand('chatQueuePoll', { lua: POLL_SCRIPT });
    redis.defineCommand('chatQueueAppend', { lua: APPEND_SCRIPT });
    redis.defineCommand('chatQueueGc', { numberOfKeys: 2, lua: GC_SCRIPT });
  }
  return r;
}

export type NewQueue = Omit<QueueInfo, 'id' | 'lastAccess' | 'snapshot'>;

/**
 * The events one domain-stream entry produced for one queue. `mark` is the entry's id (omitted for
 * events that do not come from the domain stream, such as heartbeats); `xid` is the transaction
 * that wrote the change, for queues registered from a snapshot.
 */
export interface QueueAppend {
  queueId: string;
  events: ClientEvent[];
  mark?: string;
  xid?: string;
}

/** What appending did: the last event id (-1: the queue is gone, -2: already appended). */
export interface AppendResult {
  lastId: number;
  /** Wake-up channel of the process where a poll of this queue waits ('' when none). */
  waiter: string;
  /** The events as stored (JSON), so a wake-up message can carry them without serializing again. */
  written: string[];
}

export type PollResult =
  | { status: 'missing' }
  | { status: 'foreign' }
  | {
      status: 'ok';
      events: QueuedEvent[];
      hiddenUpTo: number | null;
      /** The queue's last event id when it was read: the next event appended gets this + 1. */
      lastId: number;
      registration?: RegistrationSnapshot;
    };

/**
 * The texts of one append call: each event's JSON, made once per event object and kept as one
 * string object per distinct JSON, and each stored element (`<xid> <json>`) made once per
 * transaction and JSON, since a new string per queue would be hashed again for every queue.
 * Methods, not closures made per call: those lost their optimized code at every full collection
 * (see `BatchCommand`).
 */
class AppendTexts {
  private readonly texts = new Map<string, string>();
  private readonly jsonOf = new Map<ClientEvent, string>();
  private readonly elements = new Map<string, Map<string, string>>();

  ofEvents(this: AppendTexts, { events }: QueueAppend): string[] {
    const out = new Array<string>(events.length);
    for (let i = 0; i < events.length; i++) out[i] = this.of(events[i]);
    return out;
  }

  private of(event: ClientEvent): string {
    let json = this.jsonOf.get(event);
    if (json !== undefined) return json;
    json = JSON.stringify(event);
    const known = this.texts.get(json);
    if (known !== undefined) json = known;
    else this.texts.set(json, json);
    this.jsonOf.set(event, json);
    return json;
  }

  element(xid: string, json: string): string {
    let byJson = this.elements.get(xid);
    if (!byJson) this.elements.set(xid, (byJson = new Map()));
    let element = byJson.get(json);
    if (element === undefined) byJson.set(json, (element = `${xid} ${json}`));
    return element;
  }
}

export class QueueStore {
  readonly keys: EventKeys;
  private readonly ttlMs: number;
  private readonly scripts: ScriptRedis;
  private pendingPolls: PendingPoll[] = [];
  /** Made once: a closure made per call would lose its optimized code (see `BatchCommand`). */
  private readonly pollKey = (poll: PendingPoll): string => this.keys.queue(poll.queueId);
  /**
   * Registration snapshots as parsed, by their text: a queue's never changes, and every poll of
   * it returns it, so polls share one object instead of each parsing and holding its own while
   * it waits (a few hundred bytes of event types, copied by every young-generation collection).
   */
  private registrations = new Map<string, RegistrationSnapshot>();

  constructor(
    private readonly redis: RedisClient,
    readonly prefix: string,
    readonly idleSeconds: number,
    readonly partitions: number,
    /** Queues one user may hold: registering one more evicts the longest-idle (see `create`). */
    readonly queuesPerUser = Number.POSITIVE_INFINITY,
  ) {
    this.keys = eventKeys(prefix);
    this.ttlMs = (idleSeconds + 60) * 1000;
    this.scripts = withScripts(redis);
  }

  /** A store on the context's connection, or on `redis` (the events tier's polling connection). */
  static of(ctx: AppContext, redis: RedisClient = ctx.redis): QueueStore {
    const { redisPrefix, eventQueueIdleSeconds, dispatchPartitions, eventQueuesPerUser } =
      ctx.config;
    return new QueueStore(
      redis,
      redisPrefix,
      eventQueueIdleSeconds,
      dispatchPartitions,
      eventQueuesPerUser,
    );
  }

  partitionOf(userId: number): number {
    return partitionOf(userId, this.partitions);
  }

  async create(input: NewQueue): Promise<QueueInfo> {
    const id = queueIdIn(this.partitionOf(input.userId), randomUUID());
    const info: QueueInfo = { ...input, id, lastAccess: Date.now() };
    const key = this.keys.queue(info.id);
    // The hash exists before the sets name the queue, so dispatch never takes it for a stale id.
    await this.redis
      .multi()
      .hset(key, {
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
        first_id: 0,
      })
      .pexpire(key, this.ttlMs)
      .exec();
    const partition = this.partitionOf(info.userId);
    const sets = this.redis.multi();
    sets.sadd(this.keys.userQueues(partition, info.userId), info.id);
    if (info.allPublicStreams) {
      sets.sadd(this.keys.realmPublicQueues(partition, info.realmId), info.id);
    }
    sets.zadd(this.keys.access(partition), info.lastAccess, info.id);
    sets.hset(this.keys.queueSettings(partition), info.id, settingsText(info));
    sets.smembers(this.keys.userQueues(partition, info.userId));
    const results = await sets.exec();
    const ids = (results?.at(-1)?.[1] ?? []) as string[];
    if (ids.length > this.queuesPerUser) await this.evictLongestIdle(info, ids);
    return info;
  }

  /**
   * Holds a user to `queuesPerUser` queues by deleting the longest-idle ones, never the queue just
   * registered. Evicting rather than refusing: a client that lost its queues (crashed, or a
   * script that never deregisters) still gets a new one at once, and the client of an evicted
   * queue, idle the longest, re-registers on its next poll's BAD_EVENT_QUEUE_ID as Zulip clients
   * do when the server forgot a queue.
   */
  private async evictLongestIdle(registered: QueueInfo, ids: string[]): Promise<void> {
    const others = ids.filter((id) => id !== registered.id);
    // Not a transaction: the queues' hashes lie in as many Redis Cluster slots.
    const accessed = await execByNode(
      this.redis,
      others.map((id) => {
        const key = this.keys.queue(id);
        return { key, command: 'hget', args: [key, 'last_access'] };
      }),
    );
    // A queue whose hash already expired counts as idle since forever.
    const byIdle = others
      .map((id, i) => ({ id, lastAccess: Number(accessed[i] ?? 0) }))
      .sort((a, b) => a.lastAccess - b.lastAccess);
    const excess = ids.length - this.queuesPerUser;
    for (const { id } of byIdle.slice(0, excess)) {
      await this.delete({ id, userId: registered.userId, realmId: registered.realmId });
    }
  }

  async get(id: string): Promise<QueueInfo | null> {
    return parseQueue(id, await this.redis.hgetall(this.keys.queue(id)));
  }

  /**
   * The settings of queues of one partition's users (null: the queue is gone), in one command:
   * the partition's settings index holds each queue's settings as one text, and queues
   * registered alike share one parsed settings object, which dispatch learns by the thousand
   * after a reconnect wave. A queue the index lacks is gone: registration writes the entry in
   * the same transaction as the sets that name the queue, and garbage collection removes both.
   */
  async settingsOf(partition: number, ids: string[]): Promise<(QueueSettings | null)[]> {
    if (ids.length === 0) return [];
    const texts = await this.redis.hmget(this.keys.queueSettings(partition), ...ids);
    const shared = new Map<string, SharedSettings>();
    return ids.map((id, i) => {
      const text = texts[i];
      return text === null ? null : parseSettingsText(id, text, shared);
    });
  }

  /**
   * Records the database snapshot a registration's initial state was read from: events of
   * transactions it already shows are not handed out (see `poll`).
   */
  async setSnapshot(id: string, registration: RegistrationSnapshot): Promise<void> {
    await this.redis.hset(this.keys.queue(id), 'snapshot', JSON.stringify(registration));
  }

  /**
   * One poll: acknowledges events up to `lastEventId`, returns the rest (oldest first) and, when
   * there are none and `waiter` is given, has the next append publish the queue's id on that
   * channel. Events whose change the registration's initial state already holds are left out;
   * `hiddenUpTo` is then the last id left out, which the caller may acknowledge for the client.
   */
  async poll(
    id: string,
    userId: number,
    lastEventId: number | undefined,
    waiter: string | null,
  ): Promise<PollResult> {
    const acked: number | '' = lastEventId !== undefined && lastEventId >= 0 ? lastEventId : '';
    const reply = await new Promise<PollReply>((answer, fail) => {
      const poll: PendingPoll = { queueId: id, userId, acked, waiter: waiter ?? '', answer, fail };
      // The polls that arrive in one turn of the event loop go in one script call, sent once
      // the turn's input is read.
      if (this.pendingPolls.push(poll) === 1) setImmediate(() => void this.runPolls());
    });
    if (reply[0] === -1) return { status: 'missing' };
    if (reply[0] === -2) return { status: 'foreign' };
    const registration = reply[1] ? this.registrationOf(reply[1]) : undefined;
    const firstId = Number(reply[3]);
    const events: QueuedEvent[] = [];
    let hiddenUpTo: number | null = null;
    (reply[2] ?? []).forEach((element, i) => {
      const space = element.indexOf(' ');
      const event = JSON.parse(element.slice(space + 1)) as ClientEvent;
      if (shownAtRegistration(registration, event.type, element.slice(0, space))) {
        hiddenUpTo = firstId + i;
      } else events.push({ ...event, id: firstId + i });
    });
    return {
      status: 'ok',
      events,
      hiddenUpTo: events.length ? null : hiddenUpTo,
      lastId: Number(reply[4] ?? -1),
      registration,
    };
  }

  private registrationOf(text: string): RegistrationSnapshot {
    let registration = this.registrations.get(text);
    if (!registration) {
      // One per queue polled here: start again past a bound rather than track which are gone.
      if (this.registrations.size >= MAX_REGISTRATIONS) this.registrations = new Map();
      registration = JSON.parse(text) as RegistrationSnapshot;
      this.registrations.set(text, registration);
    }
    return registration;
  }

  /**
   * Runs the polls waiting for a script call: one call per group of up to POLLS_PER_SCRIPT
   * queues that share a slot, all in one round trip (one per node on a cluster). A poll only
   * acknowledges, reads and records a waiter, so running it again gives the same answer: a
   * round trip that failed (a failover's MOVED, a lost connection) is tried once more.
   */
  private async runPolls(): Promise<void> {
    const polls = this.pendingPolls;
    this.pendingPolls = [];
    const groups = slotGroups(this.redis, polls, this.pollKey, POLLS_PER_SCRIPT);
    const now = Date.now();
    const commands: BatchCommand[] = [];
    for (const group of groups) {
      const keys: string[] = [];
      const perQueue: (string | number)[] = [];
      for (const { queueId, userId, acked, waiter } of group) {
        keys.push(this.keys.queue(queueId), this.keys.events(queueId));
        perQueue.push(userId, acked, waiter);
      }
      commands.push({
        key: keys[0],
        command: 'chatQueuePoll',
        args: [keys.length, ...keys, now, this.ttlMs, TTL_REFRESH_MS, ...perQueue],
      });
    }
    let replies: unknown[];
    try {
      replies = await execByNode(this.redis, commands).catch(() =>
        execByNode(this.redis, commands),
      );
    } catch (err) {
      for (const poll of polls) poll.fail(err);
      return;
    }
    for (let g = 0; g < groups.length; g++) {
      const perQueue = replies[g] as PollReply[];
      const group = groups[g];
      for (let q = 0; q < group.length; q++) {
        const reply = perQueue[q];
        if (reply[0] === -3) group[q].fail(new Error(`queue poll failed: ${String(reply[1])}`));
        else group[q].answer(reply);
      }
    }
  }

  /**
   * Appends events to queues in one round trip (one per node on a cluster), in order: one script
   * call per group of up to QUEUES_PER_SCRIPT queues that share a node's slot (on one Redis, any
   * queues), each distinct stored element sent once per call. On a cluster the appends reach a
   * replica before this returns: the caller then acknowledges the domain-stream entries, and a
   * failover must not hand out an event id twice.
   */
  async append(appends: QueueAppend[]): Promise<AppendResult[]> {
    // Queues often share event objects (see QueueEventFormatter): each is serialized once, and
    // one string object per distinct JSON, so callers that look them up again hash each once.
    const json = new AppendTexts();
    const written = appends.map(json.ofEvents, json);
    const hashKeys = new Array<string>(appends.length);
    for (let i = 0; i < appends.length; i++) hashKeys[i] = this.keys.queue(appends[i].queueId);
    const calls = slotIndexGroups(this.redis, hashKeys, QUEUES_PER_SCRIPT);
    const commands: BatchCommand[] = [];
    for (const indexes of calls) {
      const keys: string[] = [];
      const events = new DistinctTexts();
      const perQueue: (string | number)[] = [];
      for (const i of indexes) {
        const { queueId, mark, xid } = appends[i];
        keys.push(hashKeys[i], this.keys.events(queueId));
        perQueue.push(mark === undefined ? '' : markOf(mark), written[i].length);
        for (const text of written[i]) perQueue.push(events.indexOf(json.element(xid ?? '', text)));
      }
      commands.push({
        key: keys[0],
        command: 'chatQueueAppend',
        args: [keys.length, ...keys, this.ttlMs, events.list.length, ...events.list, ...perQueue],
      });
    }
    const replies = await execByNode(this.redis, commands, { replicated: true });
    const results = new Array<AppendResult>(appends.length);
    for (let c = 0; c < calls.length; c++) {
      const reply = (replies[c] ?? []) as (number | string)[];
      const indexes = calls[c];
      for (let j = 0; j < indexes.length; j++) {
        const i = indexes[j];
        results[i] = {
          lastId: Number(reply[2 * j] ?? -1),
          waiter: String(reply[2 * j + 1] ?? ''),
          written: written[i],
        };
      }
    }
    return results;
  }

  async delete(info: Pick<QueueInfo, 'id' | 'userId' | 'realmId'>): Promise<void> {
    await this.redis.del(this.keys.queue(info.id), this.keys.events(info.id));
    await this.forget(info.id, info.userId, info.realmId);
  }

  /** Removes a queue id from its partition's sets (after the queue's keys went). */
  async forget(id: string, userId: number, realmId: number): Promise<void> {
    const removal = this.redis.multi();
    for (const command of this.forgetCommands(this.partitionOf(userId), id, [userId], [realmId])) {
      addCommand(removal, command);
    }
    await removal.exec();
  }

  /**
   * The commands, one each, that remove a queue id from the partition's keys naming it: the
   * queue-id sets of `userIds` and `realmIds`, the access index and the settings index.
   */
  forgetCommands(
    partition: number,
    id: string,
    userIds: number[],
    realmIds: number[],
  ): RedisCommand[] {
    const commands: RedisCommand[] = [];
    for (const userId of userIds) {
      commands.push({ command: 'srem', args: [this.keys.userQueues(partition, userId), id] });
    }
    for (const realmId of realmIds) {
      commands.push({
        command: 'srem',
        args: [this.keys.realmPublicQueues(partition, realmId), id],
      });
    }
    commands.push({ command: 'zrem', args: [this.keys.access(partition), id] });
    commands.push({ command: 'hdel', args: [this.keys.queueSettings(partition), id] });
    return commands;
  }

  /**
   * Deletes the queues of these partitions (all by default) idle for longer than the limit;
   * returns how many went.
   */
  async collectGarbage(
    now = Date.now(),
    partitions: readonly number[] = [...Array(this.partitions).keys()],
  ): Promise<number> {
    const cutoff = now - this.idleSeconds * 1000;
    let removed = 0;
    for (const partition of partitions) {
      for (;;) {
        const ids = await this.redis.zrangebyscore(
          this.keys.access(partition),
          '-inf',
          cutoff,
          'LIMIT',
          0,
          500,
        );
        let went = 0;
        for (const id of ids) {
          const [outcome, ...rest] = await this.scripts.chatQueueGc(
            this.keys.queue(id),
            this.keys.events(id),
            cutoff,
          );
          if (outcome === 'kept') {
            await this.redis.zadd(this.keys.access(partition), rest[0], id);
            continue;
          }
          went++;
          // A queue whose keys expired before this ran: the settings index still names its owner.
          let owner = rest[0] ? { userId: Number(rest[0]), realmId: Number(rest[1]) } : null;
          if (!owner) {
            const text = await this.redis.hget(this.keys.queueSettings(partition), id);
            owner = text === null ? null : splitSettingsText(text);
          }
          if (owner) await this.forget(id, owner.userId, owner.realmId);
          else await this.redis.zrem(this.keys.access(partition), id);
        }
        removed += went;
        // Kept queues moved up in the index, so the next page holds other ones.
        if (ids.length < 500) break;
      }
    }
    return removed;
  }
}

/** The settings shared by queues registered alike: all of QueueSettings but the ids. */
type SharedSettings = Omit<QueueSettings, 'id' | 'userId' | 'realmId'>;

/**
 * A queue's entry in its partition's settings index: `<user id> <realm id> <settings JSON>`, the
 * JSON the same text for every queue registered alike.
 */
function settingsText(info: NewQueue): string {
  const shared: SharedSettings = {
    eventTypes: info.eventTypes,
    narrow: info.narrow,
    allPublicStreams: info.allPublicStreams,
    applyMarkdown: info.applyMarkdown,
    clientGravatar: info.clientGravatar,
    slimPresence: info.slimPresence,
    capabilities: info.capabilities,
    client: info.client,
  };
  return `${info.userId} ${info.realmId} ${JSON.stringify(shared)}`;
}

/** A settings-index entry's owner and its settings JSON, unparsed. */
function splitSettingsText(text: string): { userId: number; realmId: number; json: string } {
  const user = text.indexOf(' ');
  const realm = text.indexOf(' ', user + 1);
  return {
    userId: Number(text.slice(0, user)),
    realmId: Number(text.slice(user + 1, realm)),
    json: text.slice(realm + 1),
  };
}

/** A queue's settings from its settings-index entry; `shared` parses each distinct JSON once. */
function parseSettingsText(
  id: string,
  text: string,
  shared: Map<string, SharedSettings>,
): QueueSettings {
  const { userId, realmId, json } = splitSettingsText(text);
  let settings = shared.get(json);
  if (!settings) {
    const parsed = JSON.parse(json) as SharedSettings;
    settings = { ...parsed, capabilities: { ...DEFAULT_CAPABILITIES, ...parsed.capabilities } };
    shared.set(json, settings);
  }
  return { id, userId, realmId, ...settings };
}

/** A queue's settings from its hash; null when the queue is gone. */
export function parseQueue(id: string, hash: Record<string, string>): QueueInfo | null {
  if (!hash || !hash.user) return null;
  return {
    id,
    userId: Number(hash.user),
    realmId: Number(hash.realm),
    eventTypes: JSON.parse(hash.event_types) as string[] | null,
    narrow: JSON.parse(hash.narrow) as QueueNarrowTerm[],
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
