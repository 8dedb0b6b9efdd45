import { PolledEvents, type CarriedEvent } from './polled-events';
import type { RegistrationSnapshot } from './queue-info';

/*
 * The rules by which a long-poll learns of new events without reading its queue twice (see
 * "The poll/wake protocol" in docs/architecture.md). Pure: the queue store's scripts, the
 * dispatcher's planner and the poll all follow them from here.
 */

/**
 * What woke a waiting poll: the events appended to its queue since the poll looked (ids from
 * `firstId` on, each with the transaction that wrote it and its JSON as stored), or `read` when
 * the wake-up did not carry them and the poll must read its queue.
 */
export type Wakeup = { kind: 'events'; firstId: number; events: CarriedEvent[] } | { kind: 'read' };

export const READ_QUEUE: Wakeup = { kind: 'read' };

/** Two wake-ups of one queue taken together: events stay usable only while their ids run on. */
export function mergeWakeups(earlier: Wakeup | undefined, later: Wakeup): Wakeup {
  if (!earlier) return later;
  if (earlier.kind === 'read' || later.kind === 'read') return READ_QUEUE;
  if (later.firstId !== earlier.firstId + earlier.events.length) return READ_QUEUE;
  return { ...earlier, events: [...earlier.events, ...later.events] };
}

/** The id of the first of `count` events an append wrote, given the queue's last id after it. */
export const firstIdOf = (lastId: number, count: number): number => lastId - count + 1;

/**
 * Who wakes whom. A poll about to wait records its process's wake-up channel on its queue (the
 * `waiter` field, set by the same script that found the queue empty), and the first append that
 * finds it there takes it (clears the field). So within one batch only a queue's first append
 * reports the waiter; its later appends must go the same way, or the poll would miss them.
 * Returns, per append, the channel its wake-up goes to, or null when no poll waits.
 */
export function wakeChannels(appends: { queueId: string; waiter: string }[]): (string | null)[] {
  const channelOf = new Map<string, string>();
  return appends.map(({ queueId, waiter }) => {
    const channel = channelOf.get(queueId) ?? (waiter || undefined);
    if (channel === undefined) return null;
    channelOf.set(queueId, channel);
    return channel;
  });
}

/**
 * Whether a committed transaction's effects are in a PostgreSQL snapshot, given as the text of
 * `pg_current_snapshot()` ("xmin:xmax:xip1,xip2,..."): it finished before xmin, or it is below
 * xmax and was not in progress when the snapshot was taken (PostgreSQL's pg_visible_in_snapshot).
 * Only transactions that committed are asked about: aborted ones leave no outbox rows.
 */
export function committedBefore(snapshot: string, xid: bigint): boolean {
  const [xmin, xmax, inProgress] = snapshot.split(':');
  if (xid < BigInt(xmin)) return true;
  if (xid >= BigInt(xmax)) return false;
  return !(inProgress ?? '')
    .split(',')
    .filter(Boolean)
    .some((id) => BigInt(id) === xid);
}

/**
 * Whether the registration's initial state already shows an event of this type written by
 * transaction `xid`: such an event is acknowledged for the client, never handed out.
 */
export function shownAtRegistration(
  registration: RegistrationSnapshot | undefined,
  type: string,
  xid: string | undefined,
): boolean {
  if (!registration || !xid || !registration.eventTypes.includes(type)) return false;
  return committedBefore(registration.snapshot, BigInt(xid));
}

/**
 * The events a wake-up carried, when they are exactly what a look would return: they follow on
 * from the last id the poll saw, and the registration's state shows none of them. Otherwise
 * null, and the poll looks again.
 */
export function carriedEvents(
  wakeup: Wakeup | undefined,
  lastId: number,
  registration: RegistrationSnapshot | undefined,
): PolledEvents | null {
  if (wakeup?.kind !== 'events' || wakeup.firstId !== lastId + 1) return null;
  if (wakeup.events.some(({ event, xid }) => shownAtRegistration(registration, event.type, xid))) {
    return null;
  }
  return PolledEvents.carried(wakeup.firstId, wakeup.events);
}
