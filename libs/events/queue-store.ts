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
import type { QueueSettings } from '../protocol/queue';
import { DistinctTexts } from './distinct-texts';
import { shownAtRegistration } from './wake-protocol';
import { queueIdIn } from './partition-owners';
import { newSetsVersion } from './queue-set-cache';
import type { QueuedEvent, QueueInfo, RegistrationSnapshot } from './queue-info';
import {
  markOf,
  parseQueue,
  parseSettingsText,
  queueHashFields,
  settingsText,
  splitSettingsText,
  type SharedSettings,
} from './queue-hash';
import { withScripts, type ScriptRedis } from './lua-scripts';
import { FOLLOW_MS, FOLLOWER_MARGIN_MS } from './followed-queues';
import { WakeMessage, wakeCommand } from './waker';

/**
 * Event queues live entirely in Redis, so any `events` replica can serve any queue (key layout in
 * keys.ts). A queue's hash holds its settings, which never change after registration, plus
 * `last_id` (the last event id handed out), `first_id` (the id of the oldest event still held),
 * `mark` (the last domain-stream entry delivered to it, so a redelivered entry is not appended
 * twice), `waiter` (the wake-up channel of the process where a poll waits, '' when none),
 * `follower` and `follow_until` (a process that learns every append, see `FollowedQueues`) and
 * `snapshot`. The
 * events themselves are a list, oldest first, each element `<xid> <event JSON>` (xid: the writing
 * transaction, or empty), so the event with id n is element n - first_id. A list, not a stream:
 * a stream preallocates a 4 KB node for its first entry, four times a message event's size, and
 * the page faults of 10,000 such nodes at once made the first message to 10,000 queues spend
 * 120 ms more in Redis. Queue keys carry a TTL a minute longer than the idle limit, pushed back by
 * every poll, as a backstop to the garbage collector.
 */

/**
 * How often polls push back a queue's TTL (`idleSeconds` + 60 s): the key then lives at least
 * `idleSeconds` + 30 s past its last poll, still past the garbage collector's cutoff.
 */
const TTL_REFRESH_MS = 30_000;

/** Queues one append script takes at most: Redis runs nothing else while a script runs. */
const QUEUES_PER_SCRIPT = 200;
/** Polls one poll script serves at most. */
const POLLS_PER_SCRIPT = 100;
/** How long a look's follower is told of appends, by Redis's clock. */
const FOLLOWER_MS = FOLLOW_MS + FOLLOWER_MARGIN_MS;
/** Parsed registration snapshots a store keeps, about 20,000 queues' worth of memory. */
const MAX_REGISTRATIONS = 20_000;

/** A poll waiting for its script call (see `QueueStore.poll`). */
interface PendingPoll {
  queueId: string;
  userId: number;
  acked: number | '';
  waiter: string;
  /** The wake-up channel of a process that follows the queue from this look on ('' when none). */
  follow: string;
  /** The queue's registration snapshot as this store holds it; read from Redis when missing. */
  held: RegistrationSnapshot | undefined;
  answer(reply: PollReply): void;
  fail(err: unknown): void;
}

/** One queue's part of a poll script's reply (see scripts/queue-poll.lua). */
type PollReply = [number, string?, string[]?, number?, number?, string?];

/**
 * A queue the garbage collector deleted: its owner, the ids of the messages its events still
 * held, and whether it was the owner's last queue (Zulip's `last_for_client`).
 */
export interface CollectedQueue {
  queueId: string;
  userId: number;
  realmId: number;
  messageIds: number[];
  lastForUser: boolean;
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
  /** Wake-up channel of the process that follows the queue ('' when none), told every append. */
  follower: string;
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
      /** The follower this look's `follow` took the place of, to be told ('' when none). */
      displaced: string;
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
  /**
   * The registration snapshot of each queue polled here, which never changes once written: a poll
   * reads it from Redis only the first time (it was most of the bytes a poll's script read and
   * returned).
   */
  private snapshotOf = new Map<string, RegistrationSnapshot>();

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
    await this.redis.multi().hset(key, queueHashFields(info)).pexpire(key, this.ttlMs).exec();
    const partition = this.partitionOf(info.userId);
    const sets = this.redis.multi();
    sets.sadd(this.keys.userQueues(partition, info.userId), info.id);
    if (info.allPublicStreams) {
      sets.sadd(this.keys.realmPublicQueues(partition, info.realmId), info.id);
    }
    sets.set(this.keys.queueSetsVersion(partition), newSetsVersion());
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
   * With `follow`, that channel is told every append from now on, for a while (`FollowedQueues`).
   */
  async poll(
    id: string,
    userId: number,
    lastEventId: number | undefined,
    waiter: string | null,
    follow: string | null = null,
  ): Promise<PollResult> {
    const acked: number | '' = lastEventId !== undefined && lastEventId >= 0 ? lastEventId : '';
    const held = this.snapshotOf.get(id);
    const reply = await new Promise<PollReply>((answer, fail) => {
      const poll: PendingPoll = {
        queueId: id,
        userId,
        acked,
        waiter: waiter ?? '',
        follow: follow ?? '',
        held,
        answer,
        fail,
      };
      // The polls that arrive in one turn of the event loop go in one script call, sent once
      // the turn's input is read.
      if (this.pendingPolls.push(poll) === 1) setImmediate(() => void this.runPolls());
    });
    if (reply[0] === -1) return { status: 'missing' };
    if (reply[0] === -2) return { status: 'foreign' };
    const registration = reply[1] ? this.registrationOf(id, reply[1]) : held;
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
      displaced: reply[5] ?? '',
    };
  }

  private registrationOf(queueId: string, text: string): RegistrationSnapshot {
    let registration = this.registrations.get(text);
    if (!registration) {
      // One per queue polled here: start again past a bound rather than track which are gone.
      if (this.registrations.size >= MAX_REGISTRATIONS) this.registrations = new Map();
      registration = JSON.parse(text) as RegistrationSnapshot;
      this.registrations.set(text, registration);
    }
    if (this.snapshotOf.size >= MAX_REGISTRATIONS) this.snapshotOf = new Map();
    this.snapshotOf.set(queueId, registration);
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
      for (const { queueId, userId, acked, waiter, held, follow } of group) {
        keys.push(this.keys.queue(queueId), this.keys.events(queueId));
        perQueue.push(userId, acked, waiter, held ? '' : '1', follow);
      }
      commands.push({
        key: keys[0],
        command: 'chatQueuePoll',
        args: [keys.length, ...keys, now, this.ttlMs, TTL_REFRESH_MS, FOLLOWER_MS, ...perQueue],
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
    const written = appends.map((append) => json.ofEvents(append));
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
          lastId: Number(reply[3 * j] ?? -1),
          waiter: String(reply[3 * j + 1] ?? ''),
          follower: String(reply[3 * j + 2] ?? ''),
          written: written[i],
        };
      }
    }
    return results;
  }

  /**
   * Tells the process listening on `channel`, which followed the queue, that it no longer learns
   * every append: its polls of the queue read it here again.
   */
  async unfollow(channel: string, queueId: string): Promise<void> {
    const message = new WakeMessage();
    message.addRead(queueId);
    await execByNode(this.redis, [wakeCommand(this.redis, channel, message)]);
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
   * queue-id sets of `userIds` and `realmIds` (and the sets version), the access index and the
   * settings index.
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
    // After the sets' changes: sent outside a transaction, a version read between them and the
    // changes would be taken for the changed sets' (see QueueSetCache).
    commands.push({
      command: 'set',
      args: [this.keys.queueSetsVersion(partition), newSetsVersion()],
    });
    commands.push({ command: 'zrem', args: [this.keys.access(partition), id] });
    commands.push({ command: 'hdel', args: [this.keys.queueSettings(partition), id] });
    return commands;
  }

  /**
   * Deletes the queues of these partitions (all by default) idle for longer than the limit;
   * returns how many went. `onCollected` hears of each one whose owner is known, once its keys
   * are gone.
   */
  async collectGarbage(
    now = Date.now(),
    partitions: readonly number[] = [...Array(this.partitions).keys()],
    onCollected?: (queue: CollectedQueue) => Promise<void>,
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
          const reply = await this.scripts.chatQueueGc(
            this.keys.queue(id),
            this.keys.events(id),
            cutoff,
          );
          if (reply[0] === 'kept') {
            await this.redis.zadd(this.keys.access(partition), reply[1], id);
            continue;
          }
          went++;
          const [, user, realm, messages] = reply;
          // A queue whose keys expired before this ran: the settings index still names its owner.
          let owner = user ? { userId: Number(user), realmId: Number(realm) } : null;
          if (!owner) {
            const text = await this.redis.hget(this.keys.queueSettings(partition), id);
            owner = text === null ? null : splitSettingsText(text);
          }
          if (!owner) {
            await this.redis.zrem(this.keys.access(partition), id);
            continue;
          }
          await this.forget(id, owner.userId, owner.realmId);
          if (onCollected) {
            const left = await this.redis.scard(
              this.keys.userQueues(this.partitionOf(owner.userId), owner.userId),
            );
            await onCollected({
              queueId: id,
              userId: owner.userId,
              realmId: owner.realmId,
              messageIds: messages.map(Number),
              lastForUser: left === 0,
            });
          }
        }
        removed += went;
        // Kept queues moved up in the index, so the next page holds other ones.
        if (ids.length < 500) break;
      }
    }
    return removed;
  }
}
