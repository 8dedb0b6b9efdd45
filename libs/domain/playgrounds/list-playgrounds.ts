import type { Db, Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { realmUserAudience } from '../permissions/users';
import { realmPlaygroundsEvent } from '../../protocol/events/realm-playgrounds';

export interface ApiPlayground {
  id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

export async function listPlaygrounds(db: Db | Tx, realmId: number): Promise<ApiPlayground[]> {
  const rows = await db.realmPlayground.findMany({ where: { realmId }, orderBy: { id: 'asc' } });
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    pygments_language: r.pygmentsLanguage,
    url_template: r.urlTemplate,
  }));
}

export async function sendPlaygrounds(tx: Tx, events: EventSink, realmId: number): Promise<void> {
  await events.emit(
    realmId,
    realmPlaygroundsEvent({ realm_playgrounds: await listPlaygrounds(tx, realmId) }),
    await realmUserAudience(tx, realmId),
  );
}
