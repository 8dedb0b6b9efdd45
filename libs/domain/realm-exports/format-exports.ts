import type { RealmExport } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import type { Config } from '../../core/config';
import type { Db, Tx } from '../../db/client';
import type { RealmExportRecord } from '../../protocol/events/realm-export';
import { realmExportEvent } from '../../protocol/events/realm-export';
import type { EventSink } from '../../events/outbox';
import { realmAdminIds } from '../permissions/roles';
import { realmUrl } from '../realms/realm-url';

export const ExportStatus = {
  REQUESTED: 0,
  STARTED: 1,
  SUCCEEDED: 2,
  FAILED: 3,
  DELETED: 4,
} as const;

export const ExportType = { PUBLIC: 1, FULL: 2 } as const;

/** Where the tarball is served from: the random segment is what keeps it private, as in Zulip. */
export const exportFileUrl = (key: string) => `/user_avatars/${key}`;

const seconds = (date: Date | null) => (date ? date.getTime() / 1000 : null);

/** An export as Zulip's API shows it; the URL is absolute, as Zulip's is. */
export function formatExport(
  row: RealmExport,
  realm: { stringId: string },
  config: Config,
): RealmExportRecord {
  return {
    id: row.id,
    acting_user_id: row.actingUserId ?? 0,
    export_time: row.dateRequested.getTime() / 1000,
    deleted_timestamp: seconds(row.dateDeleted),
    failed_timestamp: seconds(row.dateFailed),
    export_url:
      row.status === ExportStatus.SUCCEEDED && row.exportPath
        ? `${realmUrl(realm.stringId, config)}${exportFileUrl(row.exportPath)}`
        : null,
    pending: row.status === ExportStatus.REQUESTED || row.status === ExportStatus.STARTED,
  };
}

/** Every export of the organization, oldest first. */
export async function realmExports(
  db: Db | Tx,
  realm: { id: number; stringId: string },
  config: Config,
): Promise<RealmExportRecord[]> {
  const rows = await db.realmExport.findMany({
    where: { realmId: realm.id },
    orderBy: { id: 'asc' },
  });
  return rows.map((row) => formatExport(row, realm, config));
}

/** Tells the organization's administrators the new list, as Zulip's notify_realm_export does. */
export async function emitRealmExports(
  ctx: AppContext,
  tx: Tx,
  events: EventSink,
  realm: { id: number; stringId: string },
): Promise<void> {
  await events.emit(
    realm.id,
    realmExportEvent({ exports: await realmExports(tx, realm, ctx.config) }),
    [...(await realmAdminIds(tx, realm.id))],
  );
}
