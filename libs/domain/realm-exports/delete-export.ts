import type { Realm, User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { inTransaction } from '../../events/outbox';
import { uploadStore } from '../../storage/upload-store';
import { emitRealmExports, ExportStatus } from './format-exports';
import { requireExportAdmin } from './request-export';

/**
 * `DELETE /export/realm/{export_id}`: removes the tarball from the upload store and marks the
 * export deleted, with Zulip's refusals for one that is gone, failed or not finished.
 */
export async function deleteRealmExport(
  ctx: AppContext,
  input: { actor: User; realm: Realm; exportId: number },
): Promise<void> {
  requireExportAdmin(input.actor);
  const key = await inTransaction(ctx, async (tx, events) => {
    const rows = await tx.$queryRaw<{ id: number }[]>`
      SELECT id FROM realm_exports WHERE id = ${input.exportId} AND realm_id = ${input.realm.id}
      FOR UPDATE`;
    if (!rows[0]) throw badRequest('Invalid data export ID');
    const row = await tx.realmExport.findUniqueOrThrow({ where: { id: input.exportId } });
    if (row.status === ExportStatus.DELETED) throw badRequest('Export already deleted');
    if (row.status === ExportStatus.FAILED) throw badRequest('Export failed, nothing to delete');
    if (row.status !== ExportStatus.SUCCEEDED) throw badRequest('Export still in progress');
    await tx.realmExport.update({
      where: { id: row.id },
      data: { status: ExportStatus.DELETED, dateDeleted: new Date() },
    });
    await emitRealmExports(ctx, tx, events, input.realm);
    return row.exportPath;
  });
  // After commit: a failed delete leaves an unlisted file, never a listed export without one.
  if (key) await uploadStore(ctx.config).delete(key);
}
