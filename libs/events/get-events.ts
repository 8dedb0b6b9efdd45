import { badEventQueueId, badRequest } from '../core/errors';
import type { QueueStore } from './queue-store';
import type { QueuedEvent, QueueInfo } from './types';
import { carriedEvents } from './wake-protocol';
import type { Waker } from './waker';

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
  /** Resolves when the client went away; the poll then ends without an answer. */
  closed: Promise<void>;
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
 * answer as they stand, with no second look.
 */
export async function getEvents(
  store: QueueStore,
  waker: Waker,
  input: GetEventsInput,
): Promise<QueuedEvent[] | null> {
  const { queueId, user } = input;
  let lastEventId = input.lastEventId;
  // Listening starts before the queue records our channel, so no wake-up can come too early.
  const wait = input.dontBlock ? null : waker.listen(queueId);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), input.heartbeatSeconds * 1000);
  });
  const look = async (waiting: boolean) => {
    for (;;) {
      // Wake-ups until now are for events this look reads.
      wait?.take();
      const result = await store.poll(
        queueId,
        user.id,
        lastEventId,
        waiting ? waker.channel : null,
      );
      if (result.status === 'missing') throw badEventQueueId(queueId);
      if (result.status === 'foreign') throw notYours();
      // Events the registration's state already holds are never shown: acknowledge them.
      if (result.hiddenUpTo === null) return result;
      lastEventId = result.hiddenUpTo;
    }
  };
  try {
    let seen = await look(wait !== null);
    for (;;) {
      if (seen.events.length || !wait) return seen.events;
      const outcome = await Promise.race([
        wait.woken().then(() => 'woken' as const),
        deadline,
        input.closed.then(() => 'closed' as const),
      ]);
      if (outcome === 'closed') return null;
      if (outcome === 'timeout') {
        const [{ lastId }] = await store.append([{ queueId, events: [{ type: 'heartbeat' }] }]);
        if (lastId < 0) throw badEventQueueId(queueId);
        return (await look(false)).events;
      }
      const carried = carriedEvents(wait.take(), seen.lastId, seen.registration);
      if (carried) return carried;
      // The process is stopping: an empty list, which Zulip's clients answer by polling again at
      // once (see docs/reliability.md), without writing to a Redis that may be out of reach.
      if (waker.isDraining) return [];
      seen = await look(true);
    }
  } finally {
    clearTimeout(timer);
    wait?.stop();
  }
}
