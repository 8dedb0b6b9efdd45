import type { User } from '../../generated/prisma/client';
import { badEventQueueId, badRequest } from '../http/errors';
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

/** The queue named by a request, if it exists and belongs to the caller. */
export async function ownedQueue(
  store: QueueStore,
  user: User,
  queueId: string,
): Promise<QueueInfo> {
  const queue = await store.get(queueId);
  if (!queue) throw badEventQueueId(queueId);
  if (queue.userId !== user.id) {
    throw badRequest('You are not authorized to get events from this queue');
  }
  return queue;
}

/**
 * `GET /events`: acknowledges up to last_event_id, then answers with the queue's remaining events
 * at once, or waits for some; a poll that waited `heartbeatSeconds` gets a heartbeat event.
 */
export async function getEvents(
  store: QueueStore,
  waker: Waker,
  input: GetEventsInput,
): Promise<QueuedEvent[] | null> {
  const { snapshot } = await ownedQueue(store, input.user, input.queueId);
  await store.touch(input.queueId);
  let events = await store.read(input.queueId, input.lastEventId, snapshot);
  if (events.length || input.dontBlock) return events;

  let wake: () => void = () => undefined;
  let woken = new Promise<void>((resolve) => (wake = resolve));
  const stopListening = await waker.listen(input.queueId, () => wake());
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), input.heartbeatSeconds * 1000);
  });
  try {
    for (;;) {
      // Read again once listening: an event appended before the subscription is not missed.
      events = await store.read(input.queueId, input.lastEventId, snapshot);
      if (events.length) return events;
      const outcome = await Promise.race([
        woken.then(() => 'woken' as const),
        deadline,
        input.closed.then(() => 'closed' as const),
      ]);
      if (outcome === 'closed') return null;
      if (outcome === 'timeout') {
        const [id] = await store.append([{ queueId: input.queueId, event: { type: 'heartbeat' } }]);
        if (id < 0) throw badEventQueueId(input.queueId);
        return store.read(input.queueId, input.lastEventId, snapshot);
      }
      woken = new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    clearTimeout(timer);
    stopListening();
    await store.touch(input.queueId).catch(() => undefined);
  }
}
