import { PolledEvents, type CarriedEvent } from './polled-events';
import type { RegistrationSnapshot } from './queue-info';
import { shownAtRegistration, type Wakeup } from './wake-protocol';

/**
 * How long a queue is followed after a look at it in Redis: a poll answered from memory does not
 * record its access, so the garbage collector's `last_access` (and the keys' TTL, pushed back by
 * looks) lags by this at most, and the acknowledged events stay in Redis this long at most.
 */
export const FOLLOW_MS = 10_000;

/**
 * How much longer than FOLLOW_MS Redis keeps a process as a queue's follower (by Redis's clock,
 * from the look): past the prune that ends the follow here (every PRUNE_MS), so no append the
 * process still counts on goes unsent.
 */
export const FOLLOWER_MARGIN_MS = 3_000;

/** How often followed queues past FOLLOW_MS are forgotten, and their waiting polls look. */
export const PRUNE_MS = 1_000;

/** Events a followed queue holds at most; past it the queue's polls read Redis again. */
const MAX_HELD = 500;

/** What the dispatcher of this process appended to one queue since a poll's look at it. */
interface Followed {
  userId: number;
  partition: number;
  /**
   * The partition's leadership (see `FollowedQueues.lead`) when the look was sent, or for a
   * partition led elsewhere the wake-up channel's (see `trustRemote`).
   */
  term: number;
  /** Led elsewhere: the leader sends its appends because the look named this process follower. */
  remote: boolean;
  /** False from the look's sending to its reply; the look's last id then sets `nextId`. */
  armed: boolean;
  lookedAt: number;
  registration: RegistrationSnapshot | undefined;
  /** The id of `events[0]`: the events with ids `nextId - events.length` to `nextId - 1`. */
  nextId: number;
  events: CarriedEvent[];
  /** The last id a poll answered from memory acknowledged, which Redis does not know (-1: none). */
  acked: number;
}

/** A queue forgotten, with what memory answered of it that Redis does not know yet. */
export interface ForgottenQueue {
  queueId: string;
  userId: number;
  /** The last id acknowledged by a poll answered from memory (-1: none). */
  acked: number;
}

/** A look about to be sent for a followed queue (see `FollowedQueues.beforeLook`). */
export type LookToken = Pick<Followed, 'remote'>;

/** A poll answered from memory: the events after its acknowledged id (none: it waits). */
export interface FollowedAnswer {
  events: PolledEvents;
  /** The last id known appended: the poll waits for the one after it. */
  lastId: number;
  registration: RegistrationSnapshot | undefined;
}

const partitionOfQueue = (queueId: string): number =>
  Number(queueId.slice(0, queueId.indexOf(':')));

/**
 * The queues whose re-polls this process answers without Redis. A client's next poll after an
 * answer was a script call that only acknowledged, found nothing new and recorded the waiter: a
 * message to a 50-member channel cost 50 of them. While this process's dispatcher leads a queue's
 * partition, every append to the queue is its own, so once a poll has looked at the queue in
 * Redis the process knows its events from then on: a later poll that acknowledges a known id is
 * answered with the known events after it, or waits for the next, in memory. The events stay in
 * Redis until a look acknowledges them, so a process that dies loses nothing: the client polls
 * another replica, which reads them. Any doubt sends the poll to Redis: a gap in the ids (an
 * append by someone else, a heartbeat), an acknowledged id the process does not know, an event
 * the registration's state already shows, the partition's lease changing hands, a failed delivery,
 * or FOLLOW_MS since the last look.
 *
 * A queue whose partition another process leads is followed too, while this process's wake-up
 * channel is subscribed (`trustRemote`): the look names the process the queue's follower in Redis,
 * and the leader's append script reports the follower on every append until FOLLOWER_MARGIN_MS
 * past FOLLOW_MS, so the leader's wake-up messages carry every event, whether or not a poll waits
 * here. A look by a third process takes the follower's place and tells this one to stop
 * (a read-the-queue wake-up), and a lost subscription forgets every such queue. Clients whose
 * polls alternate between two processes then re-poll from memory on both.
 */
export class FollowedQueues {
  private readonly queues = new Map<string, Followed>();
  /** The term of each partition this process's dispatcher leads. */
  private readonly terms = new Map<number, number>();
  private lastTerm = 0;
  /** The term of queues followed in partitions led elsewhere; undefined while none may be. */
  private remoteTerm: number | undefined;

  constructor(
    /**
     * Sends polls waiting on these queues to Redis (they waited on what memory said), and has
     * Redis learn what polls answered from memory acknowledged when none waits.
     */
    private readonly forgotten: (queues: ForgottenQueue[]) => void,
  ) {}

  /** The dispatcher leads `partition` from now on (again: after a failed delivery, say). */
  lead(partition: number): void {
    this.forgetPartition(partition);
    this.terms.set(partition, ++this.lastTerm);
  }

  /** The dispatcher no longer leads `partition`: its queues' polls go to Redis. */
  unlead(partition: number): void {
    this.forgetPartition(partition);
    this.terms.delete(partition);
  }

  /** What this process knows of `partition`'s queues may be wrong: its polls read Redis. */
  distrust(partition: number): void {
    if (this.terms.has(partition)) this.lead(partition);
  }

  /** The wake-up channel is subscribed: queues led elsewhere may be followed through it. */
  trustRemote(): void {
    this.remoteTerm ??= ++this.lastTerm;
  }

  /** The wake-up channel may have lost messages: queues led elsewhere are no longer followed. */
  distrustRemote(): void {
    this.remoteTerm = undefined;
    this.forget((followed) => followed.remote);
  }

  /** The term a look at a queue of `partition` would follow it under (undefined: none). */
  private termOf(partition: number): number | undefined {
    return this.terms.get(partition) ?? this.remoteTerm;
  }

  follows(queueId: string): boolean {
    return this.queues.has(queueId);
  }

  /**
   * A poll is about to look at its queue in Redis: from now on the appends this process learns of
   * are kept, and `looked` with the look's answer keeps them as the queue's known events. Null
   * when the queue cannot be followed; `remote` when the look must name this process follower.
   */
  beforeLook(queueId: string, userId: number): LookToken | null {
    const partition = partitionOfQueue(queueId);
    const term = this.termOf(partition);
    if (term === undefined) return null;
    const followed: Followed = {
      userId,
      partition,
      term,
      remote: !this.terms.has(partition),
      armed: false,
      lookedAt: Date.now(),
      registration: undefined,
      nextId: 0,
      events: [],
      acked: -1,
    };
    this.queues.set(queueId, followed);
    return followed;
  }

  /** The look `token` began saw the queue up to `lastId`. */
  looked(
    queueId: string,
    token: LookToken | null,
    lastId: number,
    registration: RegistrationSnapshot | undefined,
  ): void {
    const followed = this.queues.get(queueId);
    if (!followed || followed !== token) return;
    const { events } = followed;
    // Appends made before the look came back are in its answer; those after follow its last id.
    const firstKept = lastId + 1 - (followed.nextId - events.length);
    if (
      this.termOf(followed.partition) !== followed.term ||
      (events.length && followed.nextId > lastId + 1 && firstKept < 0)
    ) {
      // Another poll of the queue may wait on what memory said.
      this.drop(queueId, followed);
      return;
    }
    followed.events = events.length ? events.slice(Math.max(0, firstKept)) : events;
    followed.nextId = Math.max(followed.nextId, lastId + 1);
    followed.registration = registration;
    followed.armed = true;
  }

  /** What the dispatcher of this process, or a leader's wake-up message, appended. */
  appended(wakeups: Iterable<[string, Wakeup]>): void {
    for (const [queueId, wakeup] of wakeups) {
      const followed = this.queues.get(queueId);
      if (!followed) continue;
      if (wakeup.kind === 'read') {
        this.drop(queueId, followed);
        continue;
      }
      const { firstId, events } = wakeup;
      // Before the look's answer, the first append starts the run of known ids.
      if (!followed.armed && followed.events.length === 0) followed.nextId = firstId;
      if (firstId + events.length <= followed.nextId) continue;
      if (firstId > followed.nextId || followed.events.length + events.length > MAX_HELD) {
        this.drop(queueId, followed);
        continue;
      }
      for (let i = followed.nextId - firstId; i < events.length; i++) {
        followed.events.push(events[i]);
      }
      followed.nextId = firstId + events.length;
    }
  }

  /**
   * A poll of `userId` that acknowledges `acked`, answered from memory, or null when it must look
   * in Redis. The events up to `acked` are forgotten: the client has them.
   */
  answer(queueId: string, userId: number, acked: number, now = Date.now()): FollowedAnswer | null {
    const followed = this.queues.get(queueId);
    if (!followed?.armed || followed.userId !== userId) return null;
    if (this.termOf(followed.partition) !== followed.term || now - followed.lookedAt >= FOLLOW_MS) {
      this.drop(queueId, followed);
      return null;
    }
    const firstId = followed.nextId - followed.events.length;
    if (acked < firstId - 1 || acked >= followed.nextId) return null;
    followed.events = followed.events.slice(acked + 1 - firstId);
    followed.acked = Math.max(followed.acked, acked);
    const { events, registration } = followed;
    if (events.some(({ event, xid }) => shownAtRegistration(registration, event.type, xid))) {
      return null;
    }
    return {
      events: PolledEvents.carried(acked + 1, events),
      lastId: followed.nextId - 1,
      registration,
    };
  }

  /**
   * Forgets the queues no poll looked at for FOLLOW_MS. Their waiting polls look, which records
   * their access and waiter in Redis: without a waiter there, only a followed queue woke them.
   */
  prune(now = Date.now()): void {
    this.forget((followed) => now - followed.lookedAt >= FOLLOW_MS);
  }

  private forgetPartition(partition: number): void {
    this.forget((followed) => followed.partition === partition);
  }

  private forget(which: (followed: Followed) => boolean): void {
    const forgotten: ForgottenQueue[] = [];
    for (const [queueId, followed] of this.queues) {
      if (!which(followed)) continue;
      this.queues.delete(queueId);
      forgotten.push({ queueId, userId: followed.userId, acked: followed.acked });
    }
    if (forgotten.length) this.forgotten(forgotten);
  }

  private drop(queueId: string, followed: Followed): void {
    this.queues.delete(queueId);
    this.forgotten([{ queueId, userId: followed.userId, acked: followed.acked }]);
  }
}
