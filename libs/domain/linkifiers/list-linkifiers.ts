import type { Db, Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { realmUserAudience } from '../permissions/users';
import { realmLinkifiersEvent } from '../../protocol/events/realm-linkifiers';

export interface ApiLinkifier {
  pattern: string;
  url_template: string;
  id: number;
}

export async function listLinkifiers(db: Db | Tx, realmId: number): Promise<ApiLinkifier[]> {
  const rows = await db.realmFilter.findMany({
    where: { realmId },
    orderBy: [{ order: 'asc' }, { id: 'asc' }],
  });
  return rows.map((r) => ({ pattern: r.pattern, url_template: r.urlTemplate, id: r.id }));
}

export async function sendLinkifiers(tx: Tx, events: EventSink, realmId: number): Promise<void> {
  await events.emit(
    realmId,
    realmLinkifiersEvent({ realm_linkifiers: await listLinkifiers(tx, realmId) }),
    await realmUserAudience(tx, realmId),
  );
}
