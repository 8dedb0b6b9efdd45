import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AppContext } from '../core/context';
import { inTransaction } from '../events/outbox';
import type { RealmExportPayload } from '../jobs';
import { emitRealmExports, ExportStatus } from '../domain/realm-exports/format-exports';
import { uploadStore } from '../storage/upload-store';
import { exportRealm } from './export-realm';

/** Where an export's tarball is stored: `exports/<realm_id>/<random>/<name>`, as Zulip keys it. */
const exportKey = (realmId: number, name: string) =>
  `exports/${realmId}/${randomBytes(24).toString('base64url')}/${name}`;

async function setStatus(
  ctx: AppContext,
  exportId: number,
  data: Parameters<AppContext['db']['realmExport']['update']>[0]['data'],
): Promise<void> {
  await inTransaction(ctx, async (tx, events) => {
    const row = await tx.realmExport.update({
      where: { id: exportId },
      data,
      include: { realm: { select: { id: true, stringId: true } } },
    });
    await emitRealmExports(ctx, tx, events, row.realm);
  });
}

/**
 * The `realm-export` job: writes the organization's public export into a temporary file, puts
 * it in the upload store, and tells the administrators it succeeded or failed. An export already
 * started or gone (a second delivery of the job, a deleted organization) is left alone.
 */
export async function runRealmExport(ctx: AppContext, payload: RealmExportPayload): Promise<void> {
  const claimed = await ctx.db.realmExport.updateMany({
    where: { id: payload.exportId, status: ExportStatus.REQUESTED },
    data: { status: ExportStatus.STARTED, dateStarted: new Date() },
  });
  if (claimed.count === 0) return;
  const row = await ctx.db.realmExport.findUniqueOrThrow({
    where: { id: payload.exportId },
    include: { realm: { select: { stringId: true } } },
  });
  const work = await mkdtemp(path.join(os.tmpdir(), 'realm-export-job-'));
  try {
    const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 15);
    const name = `zulip-export-${row.realm.stringId || 'root'}-${stamp}.tar.gz`;
    const file = path.join(work, name);
    const summary = await exportRealm(ctx, { realmId: row.realmId, file, scope: 'public' });
    const key = exportKey(row.realmId, name);
    await uploadStore(ctx.config).putFile(key, file, 'application/gzip');
    await setStatus(ctx, row.id, {
      status: ExportStatus.SUCCEEDED,
      dateSucceeded: new Date(),
      exportPath: key,
      tarballSizeBytes: BigInt(summary.bytes),
    });
  } catch (err) {
    ctx.log.error('worker', 'organization export failed', {
      exportId: row.id,
      error: (err as Error).message,
    });
    await setStatus(ctx, row.id, { status: ExportStatus.FAILED, dateFailed: new Date() });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
