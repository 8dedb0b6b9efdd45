import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { emitAttachmentEvent, uploadSpaceUsed } from './format-attachment';
import { removeStoredFile } from './storage';

/** Rows deleted per transaction, so a large backlog never holds one long transaction. */
const DEFAULT_BATCH_SIZE = 500;

interface DeletedRow {
  id: number;
  path_id: string;
  owner_id: number;
  realm_id: number;
}

/**
 * Deletes uploads that no message, archived message or scheduled message links and that are
 * older than the retention period (Zulip's do_delete_old_unclaimed_attachments): the rows, then their files.
 * Each owner is sent an `attachment` remove event. Returns how many were deleted.
 */
export async function deleteUnclaimedAttachments(
  ctx: AppContext,
  input: { olderThanDays: number; batchSize?: number },
): Promise<number> {
  const cutoff = new Date(Date.now() - input.olderThanDays * 24 * 60 * 60 * 1000);
  const batchSize = input.batchSize ?? DEFAULT_BATCH_SIZE;
  let total = 0;
  for (;;) {
    const deleted = await inTransaction(ctx, async (tx, events) => {
      // A message linking one of these right now holds a lock on its row (the foreign-key
      // check); SKIP LOCKED leaves that file for the next run instead of waiting on it.
      const rows = await tx.$queryRaw<DeletedRow[]>`
        DELETE FROM attachments
        WHERE id IN (
          SELECT a.id FROM attachments AS a
          WHERE a.create_time < ${cutoff}
            AND NOT EXISTS (SELECT 1 FROM attachment_messages AS m WHERE m.attachment_id = a.id)
            AND NOT EXISTS (
              SELECT 1 FROM attachment_scheduled_messages AS s WHERE s.attachment_id = a.id
            )
            AND NOT EXISTS (
              SELECT 1 FROM archived_attachment_messages AS x WHERE x.attachment_id = a.id
            )
          ORDER BY a.id
          LIMIT ${batchSize}
          FOR UPDATE SKIP LOCKED
        )
        RETURNING id, path_id, owner_id, realm_id`;
      const spaceByRealm = new Map<number, number>();
      for (const realmId of new Set(rows.map((r) => r.realm_id))) {
        spaceByRealm.set(realmId, await uploadSpaceUsed(tx, realmId));
      }
      for (const row of rows) {
        const owner = { id: row.owner_id, realmId: row.realm_id };
        await emitAttachmentEvent(events, {
          owner,
          op: 'remove',
          attachment: { id: row.id },
          spaceUsed: spaceByRealm.get(row.realm_id) ?? 0,
        });
      }
      return rows;
    });
    // Files leave the disk once their rows are gone, as when an owner deletes one.
    for (const row of deleted) await removeStoredFile(ctx.config, row.path_id);
    total += deleted.length;
    if (deleted.length < batchSize) break;
  }
  if (total) ctx.log.info('domain', 'deleted unclaimed uploads', { count: total });
  return total;
}
