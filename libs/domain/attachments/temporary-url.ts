import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../core/config';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { servable, type ServableFile } from './access-upload';

/** Zulip's temporary upload URLs are good for a minute: long enough to start a download. */
export const TEMPORARY_URL_SECONDS = 60;

const signature = (secretKey: string, pathId: string, expires: number) =>
  createHmac('sha256', secretKey)
    .update(`user_uploads/temporary\n${pathId}\n${expires}`)
    .digest('base64url');

const lastSegment = (pathId: string) => pathId.slice(pathId.lastIndexOf('/') + 1);

/**
 * `/user_uploads/temporary/<token>/<file name>`: a URL anyone holding it may fetch until it
 * expires, for clients that cannot send credentials with a download (Zulip's
 * generate_unauthed_file_access_url). The token signs the path ID and the expiry.
 */
export function temporaryUploadUrl(
  config: Pick<Config, 'secretKey'>,
  pathId: string,
  now: Date,
): string {
  const expires = Math.floor(now.getTime() / 1000) + TEMPORARY_URL_SECONDS;
  const token = [
    Buffer.from(pathId).toString('base64url'),
    String(expires),
    signature(config.secretKey, pathId, expires),
  ].join('.');
  return `/user_uploads/temporary/${token}/${encodeURIComponent(lastSegment(pathId))}`;
}

/** The file a temporary URL names, with Zulip's errors for a bad, expired or altered URL. */
export async function fileForTemporaryUrl(
  ctx: AppContext,
  token: string,
  fileName: string,
  now: Date,
): Promise<ServableFile> {
  const invalid = () => badRequest('Invalid token');
  const [encodedPath, expiresText, sig, ...rest] = token.split('.');
  if (encodedPath === undefined || expiresText === undefined || !sig || rest.length) {
    throw invalid();
  }
  if (!/^\d+$/.test(expiresText)) throw invalid();
  const pathId = Buffer.from(encodedPath, 'base64url').toString('utf8');
  const expires = Number(expiresText);
  const expected = Buffer.from(signature(ctx.config.secretKey, pathId, expires));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  if (expires < now.getTime() / 1000) throw invalid();
  // A file deleted since the URL was made is as gone as an expired link.
  const attachment = await ctx.db.attachment.findUnique({ where: { pathId } });
  if (!attachment) throw invalid();
  if (lastSegment(pathId) !== fileName) throw badRequest('Invalid filename');
  return servable(ctx, attachment);
}
