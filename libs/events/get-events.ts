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
  /** Registers the call to make if the client goes away; the poll then ends without an answer. */
  onClose(listener: () => void): void;
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
  // A wait ends at a wake-up, the heartbeat or the client's going away, whichever comes first:
  // one promise per wait, resumed by whichever of the three calls `resume`. Thousands of polls
  // wait at once, and a race of three promises left garbage each young-generation collection
  // copied while they waited.
  let ended: 'timeout' | 'closed' | null = null;
  let resume: (() => void) | null = null;
  const end = (why: 'timeout' | 'closed') => {
    ended ??= why;
    resume?.();
  };
  const timer = wait ? setTimeout(end, input.heartbeatSeconds * 1000, 'timeout') : undefined;
  if (wait) input.onClose(() => end('closed'));
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
      if (!ended) {
        await new Promise<void>((resolve) => {
          resume = resolve;
          wait.onWoken(resolve);
        });
        resume = null;
      }
      if (ended === 'closed') return null;
      if (ended === 'timeout' && !wait.hasWakeup) {
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
