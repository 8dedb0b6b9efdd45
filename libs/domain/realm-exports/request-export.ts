import type { Realm, User } from '../../../generated/prisma/client';
import { badRequest, insufficientPermission } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { inTransaction } from '../../events/outbox';
import { Jobs, writeJob } from '../../jobs';
import { isRealmAdmin } from '../permissions/roles';
import { emitRealmExports, ExportType } from './format-exports';

/** Zulip's limit: five exports a week per organization. */
const EXPORTS_PER_WEEK = 5;
const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

export function requireExportAdmin(actor: User): void {
  if (!isRealmAdmin(actor)) throw insufficientPermission('Must be an organization administrator');
}

/**
 * `POST /export/realm`: records the request and owes the worker tier the export job in the same
 * transaction; the administrators see the pending export at once (`realm_export`).
 */
export async function requestRealmExport(
  ctx: AppContext,
  input: { actor: User; realm: Realm },
): Promise<{ id: number }> {
  requireExportAdmin(input.actor);
  return inTransaction(ctx, async (tx, events) => {
    // One request at a time per organization, so two cannot both pass the weekly limit.
    await tx.$queryRaw`SELECT id FROM realms WHERE id = ${input.realm.id} FOR UPDATE`;
    const recent = await tx.realmExport.count({
      where: { realmId: input.realm.id, dateRequested: { gte: new Date(Date.now() - WEEK_MS) } },
    });
    if (recent >= EXPORTS_PER_WEEK) throw badRequest('Exceeded rate limit.');
    const row = await tx.realmExport.create({
      data: { realmId: input.realm.id, actingUserId: input.actor.id, type: ExportType.PUBLIC },
    });
    await writeJob(tx, Jobs.realmExport, { exportId: row.id });
    await emitRealmExports(ctx, tx, events, input.realm);
    return { id: row.id };
  });
}
