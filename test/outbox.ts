import type { AppContext } from '../libs/core/context';

/** One outbox row as tests read it: the event and the IDs of the users it goes to. */
export interface RecordedEvent {
  event: { type: string; [field: string]: unknown };
  users: number[];
}

/** The highest outbox row ID so far; pass it to `eventsAfter` to see what an action emitted. */
export async function outboxMark(t: Pick<AppContext, 'db'>): Promise<bigint> {
  const last = await t.db.outboxEvent.findFirst({ orderBy: { id: 'desc' }, select: { id: true } });
  return last?.id ?? 0n;
}

/** Events written to the outbox after `mark`, oldest first. */
export async function eventsAfter(
  t: Pick<AppContext, 'db'>,
  mark: bigint,
): Promise<RecordedEvent[]> {
  const rows = await t.db.outboxEvent.findMany({
    where: { id: { gt: mark } },
    orderBy: { id: 'asc' },
  });
  return rows.map((row) => ({
    event: row.eventJson as RecordedEvent['event'],
    users: row.usersJson as number[],
  }));
}

/** The events of one type (and op) among `events`. */
export const ofType = (events: RecordedEvent[], type: string, op?: string) =>
  events.filter((e) => e.event.type === type && (op === undefined || e.event.op === op));
