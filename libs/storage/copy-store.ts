import mime from 'mime-types';
import type { LocalUploadStore } from './local-store';
import type { UploadStore } from './types';

export interface CopyReport {
  copied: number;
  bytes: number;
  removed_locally: number;
}

/**
 * Copies every object of a local upload tree into another store under the same key (so the
 * same URLs keep working), checking each arrived before, with `removeLocal`, deleting the local
 * copy. Copying again is harmless: keys are overwritten with the same bytes.
 */
export async function copyLocalUploads(
  from: LocalUploadStore,
  to: UploadStore,
  options: { removeLocal: boolean },
): Promise<CopyReport> {
  const report: CopyReport = { copied: 0, bytes: 0, removed_locally: 0 };
  for await (const { key, size } of from.list()) {
    await to.putFile(key, from.pathOf(key), mime.lookup(key) || null, { keepSource: true });
    if (!(await to.exists(key))) throw new Error(`'${key}' did not arrive in the ${to.kind} store`);
    report.copied += 1;
    report.bytes += size;
    if (options.removeLocal) {
      await from.delete(key);
      report.removed_locally += 1;
    }
  }
  return report;
}
