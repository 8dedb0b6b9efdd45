import { badEventQueueId, badRequest } from '../core/errors';
import type { PollResult, QueueStore } from './queue-store';
import { PolledEvents } from './polled-events';
import type { QueueInfo } from './queue-info';
import { carriedEvents } from './wake-protocol';
import type { FollowedAnswer } from './followed-queues';
import type { PollWait, Waker } from './waker';

/** Whose queue it is: a poll needs nothing else of the caller. */
export interface QueueOwner {
  id: number;
}

export interface GetEventsInput {
  user: QueueOwner;
  queueId: string;
  lastEventId?: number;
  dontBlock: boolean;
  heartbeatSeconds: number;
  /** The client's connection (the response): if it closes first, the poll ends without an answer. */
  client: ClientConnection;
}

export interface ClientConnection {
  on(event: 'close', listener: () => void): unknown;
}

const notYours = () => badRequest('You are not authorized to get events from this queue');

/** The queue named by a request, if it exists and belongs to the caller. */
export async function ownedQueue(
  store: QueueStore,
  user: QueueOwner,
  queueId: string,
): Promise<QueueInfo> {
  const queue = await store.get(queueId);
  if (!queue) throw badEventQueueId(queueId);
  if (queue.userId !== user.id) throw notYours();
  return queue;
}

/** Where a poll's outcome goes: its events (null: the client went away first), or its error. */
export interface PollReply {
  answered(polled: PolledEvents | null): void;
  failed(err: unknown): void;
}

/**
 * `GET /events`: acknowledges up to last_event_id, then answers with the queue's remaining events
 * at once, or waits for some; a poll that waited `heartbeatSeconds` gets a heartbeat event, and
 * one waiting when the process drains an empty list. Each
 * look at the queue is one script run (see `QueueStore.poll`). A waiting poll is woken by the
 * process's wake-up channel, whose message usually carries the new events: when their ids follow
 * on from the queue's last id at the look, and the registration hides none of them, they are the
 * answer as they stand, with no second look. A client's next poll, on the process whose dispatcher
 * appends to the queue, or on a process the look named its follower, needs no look either when
 * the process knows the queue's events past the id it acknowledges (`FollowedQueues`).
 */
export function getEvents(
  store: QueueStore,
  waker: Waker,
  input: GetEventsInput,
): Promise<PolledEvents | null> {
  return new Promise((answered, failed) => pollEvents(store, waker, input, { answered, failed }));
}

/**
 * `getEvents`, its outcome told to `reply`, exactly once. Nothing awaits while the poll waits:
 * thousands wait at once, and what each keeps alive is copied by young-generation collections and
 * then promoted; a suspended async function per poll, and one per caller awaiting it, kept their
 * frames and the promises between them, about 1.5 KB a poll.
 */
export function pollEvents(
  store: QueueStore,
  waker: Waker,
  input: GetEventsInput,
  reply: PollReply,
): void {
  new QueuePoll(store, waker, input, reply).start();
}

/**
 * One poll of a queue, from its first look to its answer: a waiting poll is this object, its
 * `PollWait`, its heartbeat timer and its listener on the client, with methods every poll shares.
 */
class QueuePoll {
  /** What the poll has acknowledged for the client so far. */
  lastEventId: number | undefined;
  private readonly wait: PollWait | null;
  /** The queue's last id at the last look (or as this process knew it): the poll waits past it. */
  private lastSeenId = -1;
  private registration: Seen['registration'];
  /** How the wait ended, when it ended other than by a wake-up. */
  private why: 'timeout' | 'closed' | null = null;
  /** Whether the poll waits for a wake-up, the heartbeat or the client's going away. */
  private parked = false;
  private done = false;
  private readonly timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: QueueStore,
    private readonly waker: Waker,
    private readonly input: GetEventsInput,
    private readonly reply: PollReply,
  ) {
    this.lastEventId = input.lastEventId;
    // Listening starts before the queue records our channel, so no wake-up can come too early.
    this.wait = input.dontBlock ? null : waker.listen(input.queueId);
    if (this.wait) {
      this.timer = setTimeout(heartbeatDue, input.heartbeatSeconds * 1000, this);
      input.client.on('close', this.closed.bind(this));
    }
  }

  start(): void {
    let known;
    try {
      known = this.wait && fromMemory(this.waker, this.input);
    } catch (err) {
      return this.fail(err);
    }
    if (known?.events.count) return this.finish(known.events);
    if (!known) return void this.lookThenWait(this.wait !== null);
    this.lastSeenId = known.lastId;
    this.registration = known.registration;
    this.park([]);
  }

  /**
   * A wake-up came (or the process drains). The poll goes on once the code that woke it is done,
   * as an awaited promise would: the waker's loop, or `FollowedQueues` forgetting queues, which
   * a look would otherwise enter halfway through.
   */
  woken(): void {
    if (!this.parked) return;
    this.parked = false;
    process.nextTick(goOn, this);
  }

  /** After the wait: answers, or looks at the queue again. */
  goOn(): void {
    try {
      this.afterWait();
    } catch (err) {
      this.fail(err);
    }
  }

  closed(): void {
    this.ended('closed');
  }

  ended(why: 'timeout' | 'closed'): void {
    this.why ??= why;
    this.woken();
  }

  /** Answers what the look saw, or waits for more. */
  private park(seen: Seen['events']): void {
    const { wait } = this;
    if (seen.length || !wait) return this.finish(PolledEvents.read(seen));
    if (this.why) return this.afterWait();
    this.parked = true;
    wait.onWoken(this);
  }

  private afterWait(): void {
    const wait = this.wait!;
    if (this.why === 'closed') return this.finish(null);
    if (this.why === 'timeout' && !wait.hasWakeup) return void this.heartbeat();
    const carried = carriedEvents(wait.take(), this.lastSeenId, this.registration);
    if (carried) return this.finish(carried);
    // The process is stopping: an empty list, which Zulip's clients answer by polling again at
    // once (see docs/reliability.md), without writing to a Redis that may be out of reach.
    if (this.waker.isDraining) return this.finish(PolledEvents.read([]));
    void this.lookThenWait(true);
  }

  private async lookThenWait(waiting: boolean): Promise<void> {
    try {
      const { events, lastId, registration } = await look(
        this.store,
        this.waker,
        this,
        this.wait,
        waiting,
      );
      this.lastSeenId = lastId;
      this.registration = registration;
      this.park(events);
    } catch (err) {
      this.fail(err);
    }
  }

  private async heartbeat(): Promise<void> {
    const { store, waker } = this;
    const { queueId } = this.input;
    try {
      const [{ lastId, follower }] = await store.append([
        { queueId, events: [{ type: 'heartbeat' }] },
      ]);
      if (lastId < 0) throw badEventQueueId(queueId);
      // No leader tells the queue's follower of this append: it reads the queue instead.
      if (follower && follower !== waker.channel) await store.unfollow(follower, queueId);
      const { events } = await look(store, waker, this, this.wait, false);
      this.finish(PolledEvents.read(events));
    } catch (err) {
      this.fail(err);
    }
  }

  private finish(polled: PolledEvents | null): void {
    if (!this.stop()) return;
    // An answer that throws (a head node refuses) is answered as the error, as the route's is.
    try {
      this.reply.answered(polled);
    } catch (err) {
      this.reply.failed(err);
    }
  }

  private fail(err: unknown): void {
    if (this.stop()) this.reply.failed(err);
  }

  /** Ends the wait; false if the poll had ended already. */
  private stop(): boolean {
    if (this.done) return false;
    this.done = true;
    this.parked = false;
    if (this.timer) clearTimeout(this.timer);
    this.wait?.stop();
    return true;
  }

  get queueId(): string {
    return this.input.queueId;
  }

  get userId(): number {
    return this.input.user.id;
  }
}

function heartbeatDue(poll: QueuePoll): void {
  poll.ended('timeout');
}

function goOn(poll: QueuePoll): void {
  poll.goOn();
}

/** What a look found, or what this process knew without one. */
type Seen = Pick<Extract<PollResult, { status: 'ok' }>, 'events' | 'lastId' | 'registration'>;

/** The poll's answer, or its queue's last id to wait past, as this process knows them, if it does. */
function fromMemory(
  waker: Waker,
  { queueId, user, lastEventId }: GetEventsInput,
): FollowedAnswer | null {
  if (lastEventId === undefined || lastEventId < 0) return null;
  return waker.followed.answer(queueId, user.id, lastEventId);
}

/** A poll as a look sees it: the client's position is moved past events it must not see. */
interface LookingPoll {
  readonly queueId: string;
  readonly userId: number;
  lastEventId: number | undefined;
}

/**
 * One look at the queue: acknowledges up to the position, returns what is left, and records this
 * process's channel when `waiting`. Events the registration's state already holds are never
 * shown: they are acknowledged, and the queue looked at again.
 */
async function look(
  store: QueueStore,
  waker: Waker,
  position: LookingPoll,
  wait: PollWait | null,
  waiting: boolean,
): Promise<Seen> {
  const { queueId, userId } = position;
  for (;;) {
    // Wake-ups until now are for events this look reads.
    wait?.take();
    const following = wait && waker.followed.beforeLook(queueId, userId);
    const result = await store.poll(
      queueId,
      userId,
      position.lastEventId,
      waiting ? waker.channel : null,
      following?.remote ? waker.channel : null,
    );
    if (result.status === 'missing') throw badEventQueueId(queueId);
    if (result.status === 'foreign') throw notYours();
    waker.followed.looked(queueId, following, result.lastId, result.registration);
    // Told before the answer, so the client's next poll finds the process it left no longer
    // answering from what it knew.
    if (result.displaced) await store.unfollow(result.displaced, queueId);
    if (result.hiddenUpTo === null) return result;
    position.lastEventId = result.hiddenUpTo;
  }
}
