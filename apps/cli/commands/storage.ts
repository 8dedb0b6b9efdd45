import type { AppContext } from '../../../libs/core/context';
import { copyLocalUploads } from '../../../libs/storage/copy-store';
import { LocalUploadStore } from '../../../libs/storage/local-store';
import { uploadStore } from '../../../libs/storage/upload-store';
import { optionalFlag, parseFlags, UsageError } from '../args';

/**
 * `move-uploads-to-s3`: copies the uploads, avatars and emoji on local disk (`--from DIR`,
 * default UPLOADS_DIR) into the S3 bucket the S3_* settings name, under the same keys.
 * `--delete-local` removes each local file once it is in the bucket.
 */
export async function moveUploadsToS3Command(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['from'], ['delete-local']);
  if (!ctx.config.s3) throw new UsageError('S3_BUCKET is not set: there is no bucket to move to');
  const from = new LocalUploadStore(optionalFlag(flags, 'from') ?? ctx.config.uploadsDir);
  const report = await copyLocalUploads(from, uploadStore(ctx.config), {
    removeLocal: flags['delete-local'] === true,
  });
  return { from: from.root, bucket: ctx.config.s3.bucket, ...report };
}
