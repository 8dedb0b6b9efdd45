import type { User } from '../../generated/prisma/client';
import { badEventQueueId, badRequest } from '../core/errors';
import type { QueueStore } from './queue-store';
import type { QueuedEvent, QueueInfo } from './types';
import type { Waker } from './waker';

export interface GetEventsInput {
  user: User;
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
  user: User,
  queueId: string,
): Promise<QueueInfo> {
  const queue = await store.get(queueId);
  if (!queue) throw badEventQueueId(queueId);
  if (queue.userId !== user.id) throw notYours();
  return queue;
}

/**
 * `GET /events`: acknowledges up to last_event_id, then answers with the queue's remaining events
 * at once, or waits for some; a poll that waited `heartbeatSeconds` gets a heartbeat event. Each
 * look at the queue is one script run (see `QueueStore.poll`); a waiting poll is a callback that
 * the process's wake-up channel calls.
 */
export async function getEvents(
  store: QueueStore,
  waker: Waker,
  input: GetEventsInput,
): Promise<QueuedEvent[] | null> {
  const { queueId, user } = input;
  let lastEventId = input.lastEventId;
  let wake: () => void = () => undefined;
  let woken = new Promise<void>((resolve) => (wake = resolve));
  // Listening starts before the queue records our channel, so no wake-up can come too early.
  const stopListening = input.dontBlock ? () => undefined : waker.listen(queueId, () => wake());
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), input.heartbeatSeconds * 1000);
  });
  const look = async (waiting: boolean) => {
    for (;;) {
      const result = await store.poll(
        queueId,
        user.id,
        lastEventId,
        waiting ? waker.channel : null,
      );
      if (result.status === 'missing') throw badEventQueueId(queueId);
      if (result.status === 'foreign') throw notYours();
      // Events the registration's state already holds are never shown: acknowledge them.
      if (result.hiddenUpTo === null) return result.events;
      lastEventId = result.hiddenUpTo;
    }
  };
  try {
    for (;;) {
      const events = await look(!input.dontBlock);
      if (events.length || input.dontBlock) return events;
      const outcome = await Promise.race([
        woken.then(() => 'woken' as const),
        deadline,
        input.closed.then(() => 'closed' as const),
      ]);
      if (outcome === 'closed') return null;
      if (outcome === 'timeout') {
        const [{ lastId }] = await store.append([{ queueId, events: [{ type: 'heartbeat' }] }]);
        if (lastId < 0) throw badEventQueueId(queueId);
        return look(false);
      }
      woken = new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    clearTimeout(timer);
    stopListening();
  }
}
