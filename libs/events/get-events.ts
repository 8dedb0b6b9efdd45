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
export async function getEvents(
  store: QueueStore,
  waker: Waker,
  input: GetEventsInput,
): Promise<PolledEvents | null> {
  const { queueId } = input;
  const position: PollPosition = { lastEventId: input.lastEventId };
  // Listening starts before the queue records our channel, so no wake-up can come too early.
  const wait = input.dontBlock ? null : waker.listen(queueId);
  const end = wait ? new WaitEnd(input, wait) : null;
  try {
    const known = wait && fromMemory(waker, input);
    if (known?.events.count) return known.events;
    let seen = known
      ? { events: [], lastId: known.lastId, registration: known.registration }
      : await look(store, waker, input, position, wait, wait !== null);
    for (;;) {
      if (seen.events.length || !wait || !end) return PolledEvents.read(seen.events);
      if (!end.why) await end.nextEnd();
      if (end.why === 'closed') return null;
      if (end.why === 'timeout' && !wait.hasWakeup) {
        const [{ lastId, follower }] = await store.append([
          { queueId, events: [{ type: 'heartbeat' }] },
        ]);
        if (lastId < 0) throw badEventQueueId(queueId);
        // No leader tells the queue's follower of this append: it reads the queue instead.
        if (follower && follower !== waker.channel) await store.unfollow(follower, queueId);
        return PolledEvents.read((await look(store, waker, input, position, wait, false)).events);
      }
      const carried = carriedEvents(wait.take(), seen.lastId, seen.registration);
      if (carried) return carried;
      // The process is stopping: an empty list, which Zulip's clients answer by polling again at
      // once (see docs/reliability.md), without writing to a Redis that may be out of reach.
      if (waker.isDraining) return PolledEvents.read([]);
      seen = await look(store, waker, input, position, wait, true);
    }
  } finally {
    end?.stop();
    wait?.stop();
  }
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

/** What the poll has acknowledged for the client so far. */
interface PollPosition {
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
  { queueId, user }: GetEventsInput,
  position: PollPosition,
  wait: PollWait | null,
  waiting: boolean,
): Promise<Seen> {
  for (;;) {
    // Wake-ups until now are for events this look reads.
    wait?.take();
    const following = wait && waker.followed.beforeLook(queueId, user.id);
    const result = await store.poll(
      queueId,
      user.id,
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

/**
 * How a waiting poll's wait ends: at a wake-up, the heartbeat or the client's going away,
 * whichever comes first, resuming one promise. Thousands of polls wait at once: a race of three
 * promises left garbage each young-generation collection copied while they waited, and closures
 * made per poll lost their optimized code at every full collection (see `BatchCommand`), so the
 * wait is an object whose methods every poll shares.
 */
class WaitEnd {
  why: 'timeout' | 'closed' | null = null;
  private resume: (() => void) | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(
    input: GetEventsInput,
    private readonly wait: PollWait,
  ) {
    this.timer = setTimeout(heartbeatDue, input.heartbeatSeconds * 1000, this);
    input.client.on('close', this.closed.bind(this));
  }

  closed(): void {
    this.end('closed');
  }

  end(why: 'timeout' | 'closed'): void {
    this.why ??= why;
    this.resume?.();
  }

  /** Resolves at the next wake-up, the heartbeat or the client's going away. */
  nextEnd(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.resume = resolve;
      this.wait.onWoken(resolve);
    });
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

function heartbeatDue(end: WaitEnd): void {
  end.end('timeout');
}
