import type { Db, Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { mutedTopicsEvent, type MutedTopic } from '../../protocol/events/muted-topics';

/** Visibility policy 1 is "muted"; the legacy `muted_topics` list carries only those. */
const MUTED = 1;

/** The user's muted topics in the legacy form, oldest row first (register and event alike). */
export async function mutedTopicsOf(db: Db | Tx, userId: number): Promise<MutedTopic[]> {
  const rows = await db.userTopic.findMany({
    where: { userId, visibilityPolicy: MUTED },
    orderBy: { id: 'asc' },
    include: { stream: { select: { name: true } } },
  });
  return rows.map((r) => [r.stream.name, r.topicName, Math.floor(r.lastUpdated.getTime() / 1000)]);
}

/** Sends the user the legacy `muted_topics` list after a change of their topics' visibility. */
export async function emitMutedTopics(
  tx: Tx,
  events: EventSink,
  realmId: number,
  userId: number,
): Promise<void> {
  await events.emit(realmId, mutedTopicsEvent({ muted_topics: await mutedTopicsOf(tx, userId) }), [
    userId,
  ]);
}
