import type { RedisClient } from '../core/context';
import type { BatchCommand } from '../redis/by-node';
import { isCluster } from '../redis/connect';
import { DistinctTexts } from './distinct-texts';
import type { ClientEvent } from '../protocol/event-catalogue';
import { FollowedQueues, PRUNE_MS, type ForgottenQueue } from './followed-queues';
import { mergeWakeups, READ_QUEUE, type Wakeup } from './wake-protocol';

/** What a waiting poll is told when it is woken (see `PollWait.onWoken`). */
export interface PollWaiter {
  woken(): void;
}

/**
 * One poll's interest in its queue, from just before it looks at the queue until it answers.
 * Wake-ups that come meanwhile are kept, merged, until the poll takes them.
 */
export class PollWait {
  private pending: Wakeup | undefined;
  private waiter: PollWaiter | null = null;

  constructor(
    readonly queueId: string,
    private readonly waker: Waker,
    /** The queue's next waiting poll (see `Waker.waiting`); nearly always none. */
    public next: PollWait | null,
  ) {}

  wake(wakeup: Wakeup): void {
    this.pending = mergeWakeups(this.pending, wakeup);
    this.notifyWaiter();
  }

  /** The wake-ups since the last take (undefined: none), forgotten from now on. */
  take(): Wakeup | undefined {
    const pending = this.pending;
    this.pending = undefined;
    return pending;
  }

  /** Whether a wake-up came since the last take. */
  get hasWakeup(): boolean {
    return this.pending !== undefined;
  }

  /**
   * Tells `waiter` once, at the next wake-up or when the process starts draining, or at once if
   * one came since the last take or the process drains already.
   */
  onWoken(waiter: PollWaiter): void {
    if (this.pending || this.waker.isDraining) waiter.woken();
    else this.waiter = waiter;
  }

  /** The process drains: a poll waiting now answers at once. */
  drain(): void {
    this.notifyWaiter();
  }

  stop(): void {
    this.waiter = null;
    this.waker.forget(this);
  }

  private notifyWaiter(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.woken();
  }
}

/**
 * Wakes long-polls when their queue gets events. Each events process has one wake-up channel: a
 * poll about to wait records the channel on its queue (in the same script that found the queue
 * empty), and the dispatcher publishes on the channel of the process where polls wait, one
 * message per process and batch. So a poll costs no SUBSCRIBE, and thousands of waiting polls are
 * objects in memory behind one subscriber connection.
 *
 * The message carries the events themselves (see `WakeMessage`), so that a woken poll answers
 * without reading its queue: a message to a big channel wakes thousands of polls at once, and a
 * read each would cost thousands of round trips' work exactly when every poll wants its answer.
 *
 * On a cluster the channel is a sharded one (SSUBSCRIBE/SPUBLISH, Redis 7): a message goes to the
 * shard owning the channel's slot only, instead of being broadcast over the cluster bus to every
 * node, and ioredis moves the subscription along when a replica takes the slot over.
 */
export class Waker {
  /**
   * Each queue's waiting polls, as a list through `PollWait.next`: a queue nearly always has one,
   * and a set each would be some 200 bytes that every waiting poll holds.
   */
  private readonly waiting = new Map<string, PollWait>();
  /**
   * Set when the process starts draining (`drain`): every poll waiting then, or after, answers
   * at once with no events. A flag and a call to each waiting poll, not a promise every poll
   * races: each race left a reaction on a promise that settles only at exit, about 660 bytes
   * per poll that waited, kept for the life of the process.
   */
  private drainingNow = false;
  /** Polls waiting now: kept as a count, since health checks and metrics read it often. */
  private waitingPolls = 0;
  /** The queues whose re-polls this process answers from its own dispatcher's appends. */
  readonly followed = new FollowedQueues((queues) => this.forgotten(queues));
  /**
   * Acknowledges in Redis what polls answered from memory acknowledged (set by the events tier):
   * a queue whose client went away would otherwise hold those events until it is collected, and
   * the garbage collector takes a queue's events for messages its owner never received.
   */
  acknowledge: (queues: ForgottenQueue[]) => void = () => undefined;
  private started = false;
  private pruner: NodeJS.Timeout | null = null;

  constructor(
    private readonly subscriber: RedisClient,
    /** This process's wake-up channel. */
    readonly channel: string,
  ) {
    subscriber.on(
      isCluster(subscriber) ? 'smessage' : 'message',
      (from: string, message: string) => {
        if (from === channel) this.wakeAppended(parseWakeMessage(message));
      },
    );
    // Messages published while the subscriber is away are lost: queues led elsewhere, known only
    // through them, are forgotten, and followed again once the channel is subscribed anew.
    subscriber.on('close', () => {
      if (this.started) this.followed.distrustRemote();
    });
    subscriber.on('ready', () => {
      if (this.started) void this.subscribe().catch(() => undefined);
    });
  }

  /**
   * Wakes the polls waiting on these queues, in order: what a message on the channel says, or
   * what the dispatcher of this same process found (it wakes its own process's polls directly,
   * without a message through Redis).
   */
  wake(wakeups: Iterable<[string, Wakeup]>): void {
    for (const [queueId, wakeup] of wakeups) this.wakeQueue(queueId, wakeup);
  }

  /**
   * Queues no longer followed: their waiting polls look in Redis (which acknowledges for them),
   * and Redis learns what memory acknowledged of the others.
   */
  private forgotten(queues: ForgottenQueue[]): void {
    const unacknowledged: ForgottenQueue[] = [];
    for (const queue of queues) {
      if (!this.wakeQueue(queue.queueId, READ_QUEUE) && queue.acked >= 0)
        unacknowledged.push(queue);
    }
    if (unacknowledged.length) this.acknowledge(unacknowledged);
  }

  /**
   * Wakes polls for what was appended, by this process's dispatcher or a leader whose message
   * came: the queues this process follows learn it.
   */
  wakeAppended(wakeups: [string, Wakeup][]): void {
    this.followed.appended(wakeups);
    this.wake(wakeups);
  }

  /** Subscribes to the process's channel; polls may wait once this resolves. */
  async start(): Promise<void> {
    this.started = true;
    await this.subscribe();
    this.pruner ??= setInterval(() => this.followed.prune(), PRUNE_MS).unref();
  }

  /**
   * Subscribes (again, after a reconnection: ioredis subscribes too, but tells no one when that
   * took effect), then lets queues led elsewhere be followed. Not on a cluster, whose sharded
   * subscriptions move between nodes without telling this connection's listeners.
   */
  private async subscribe(): Promise<void> {
    if (isCluster(this.subscriber)) {
      await this.subscriber.ssubscribe(this.channel);
      return;
    }
    await this.subscriber.subscribe(this.channel);
    if (this.subscriber.status === 'ready') this.followed.trustRemote();
  }

  /** Registers a poll's interest in its queue; `stop()` on the result cancels it. */
  listen(queueId: string): PollWait {
    const wait = new PollWait(queueId, this, this.waiting.get(queueId) ?? null);
    this.waiting.set(queueId, wait);
    this.waitingPolls++;
    return wait;
  }

  /**
   * Wakes each poll waiting on the queue with `wakeup`, or with none when the process drains;
   * false if none waits. Each poll's successor is taken first, so a waiter that stopped waiting
   * at once could not cut the walk short.
   */
  private wakeQueue(queueId: string, wakeup: Wakeup | 'draining'): boolean {
    let wait: PollWait | null | undefined = this.waiting.get(queueId);
    if (!wait) return false;
    while (wait) {
      const next: PollWait | null = wait.next;
      if (wakeup === 'draining') wait.drain();
      else wait.wake(wakeup);
      wait = next;
    }
    return true;
  }

  forget(wait: PollWait): void {
    const first = this.waiting.get(wait.queueId);
    if (first === wait) {
      if (wait.next) this.waiting.set(wait.queueId, wait.next);
      else this.waiting.delete(wait.queueId);
    } else {
      let before: PollWait | null | undefined = first;
      while (before && before.next !== wait) before = before.next;
      if (!before) return;
      before.next = wait.next;
    }
    wait.next = null;
    this.waitingPolls--;
  }

  get pollCount(): number {
    return this.waitingPolls;
  }

  /** The process is stopping: waiting polls answer now, so their clients poll a live replica. */
  drain(): void {
    this.drainingNow = true;
    for (const queueId of [...this.waiting.keys()]) this.wakeQueue(queueId, 'draining');
  }

  get isDraining(): boolean {
    return this.drainingNow;
  }

  close(): void {
    // The followed queues are not forgotten: telling Redis what memory acknowledged would go
    // through the poll connection, closed with this one.
    this.started = false;
    if (this.pruner) clearInterval(this.pruner);
    this.pruner = null;
    this.waiting.clear();
    this.waitingPolls = 0;
    this.subscriber.disconnect();
  }
}

/**
 * How much event JSON one wake-up message carries at most. Past it a queue is named alone and its
 * poll reads the queue: Redis disconnects a subscriber whose pending output passes 32 MB
 * (`client-output-buffer-limit pubsub`), and a batch of 500 entries with many distinct events
 * would otherwise publish tens of megabytes.
 */
const INLINE_BYTES = 1 << 20;

/**
 * The wake-up message for one process: `{"events": [...], "queues": [...]}`, where `events` holds
 * each distinct event once (a message to a big channel is the same JSON for most of its
 * recipients' queues) and `queues` one entry per append, `[queueId, firstId, xid, [index, ...]]`
 * (indexes into `events`), or `[queueId]` when the events are not carried. The events are spliced
 * in as the JSON the queue stored, not serialized again.
 */
export class WakeMessage {
  private readonly events = new DistinctTexts();
  private readonly queues: string[] = [];
  private inlineBytes = 0;
  /** Queues named alone: their polls read everything, so later appends need no entry. */
  private readonly readOnly = new Set<string>();

  add(queueId: string, firstId: number, xid: string, written: string[]): void {
    if (this.readOnly.has(queueId)) return;
    const fresh = written.filter((json) => !this.events.has(json));
    const size = fresh.reduce((sum, json) => sum + json.length, 0);
    if (this.inlineBytes + size > INLINE_BYTES) return this.addRead(queueId);
    this.inlineBytes += size;
    const refs = written.map((json) => this.events.indexOf(json));
    this.queues.push(
      `[${JSON.stringify(queueId)},${firstId},${JSON.stringify(xid)},[${refs.join(',')}]]`,
    );
  }

  /** Names the queue alone: its polls, and the process's memory of it, read it in Redis. */
  addRead(queueId: string): void {
    if (this.readOnly.has(queueId)) return;
    this.readOnly.add(queueId);
    this.queues.push(`[${JSON.stringify(queueId)}]`);
  }

  get text(): string {
    return `{"events":[${this.events.list.join(',')}],"queues":[${this.queues.join(',')}]}`;
  }
}

type QueueEntry = [string] | [string, number, string, number[]];

/** The queues a wake-up message names, each with what woke it, in the order they were appended. */
export function parseWakeMessage(message: string): [string, Wakeup][] {
  const { events, queues } = JSON.parse(message) as {
    events: ClientEvent[];
    queues: QueueEntry[];
  };
  // Each distinct event's text once per message, for all the answers that splice it in.
  const texts = events.map((event) => JSON.stringify(event));
  return queues.map((entry) => {
    if (entry.length === 1) return [entry[0], READ_QUEUE];
    const [queueId, firstId, xid, refs] = entry;
    const carried = refs.map((index) => ({ event: events[index], xid, json: texts[index] }));
    return [queueId, { kind: 'events', firstId, events: carried }];
  });
}

/** The command that publishes `message` on the wake-up channel of the process listening on it. */
export function wakeCommand(
  redis: RedisClient,
  channel: string,
  message: WakeMessage,
): BatchCommand {
  return {
    key: channel,
    command: isCluster(redis) ? 'spublish' : 'publish',
    args: [channel, message.text],
  };
}
