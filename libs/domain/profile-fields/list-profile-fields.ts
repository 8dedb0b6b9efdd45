import type { Db, Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { realmUserAudience } from '../permissions/users';
import { type ApiProfileField, formatProfileField } from './format-profile-field';
import { customProfileFieldsEvent } from '../../protocol/events/custom-profile-fields';

export async function listProfileFields(db: Db | Tx, realmId: number): Promise<ApiProfileField[]> {
  const rows = await db.customProfileField.findMany({
    where: { realmId },
    orderBy: [{ order: 'asc' }, { id: 'asc' }],
  });
  return rows.map(formatProfileField);
}

export async function sendFields(tx: Tx, events: EventSink, realmId: number): Promise<void> {
  await events.emit(
    realmId,
    customProfileFieldsEvent({ fields: await listProfileFields(tx, realmId) }),
    await realmUserAudience(tx, realmId),
  );
}
