import { pipeline } from 'node:stream/promises';
import type { NextFunction, Request, Response } from 'express';
import { notFound } from '../core/errors';
import { LocalUploadStore } from '../storage/local-store';
import { NotReadable, type UploadStore } from '../storage/upload-store';

const fileGone = () => notFound('This file does not exist or has been deleted.');

/**
 * Sends a stored object as the body of `res`, whose type and other headers the caller set.
 * Local files go through `res.sendFile` (ranges, ETag, Last-Modified, conditional GETs); from
 * S3 the client's Range and If-None-Match travel to the bucket and its answer streams back,
 * so audio and video still seek and caches still revalidate.
 */
export async function sendStored(
  req: Request,
  res: Response,
  next: NextFunction,
  store: UploadStore,
  key: string,
): Promise<void> {
  if (store instanceof LocalUploadStore) {
    res.sendFile(store.pathOf(key), { dotfiles: 'allow' }, (err?: Error & { status?: number }) => {
      if (err && !res.headersSent) next(err.status === 404 ? fileGone() : err);
    });
    return;
  }
  let object;
  try {
    object = await store.read(key, {
      range: req.headers.range,
      ifNoneMatch: req.headers['if-none-match'],
    });
  } catch (err) {
    if (!(err instanceof NotReadable)) throw err;
    res.status(err.status).end();
    return;
  }
  if (!object) throw fileGone();
  res.status(object.contentRange ? 206 : 200);
  res.set({ 'Accept-Ranges': 'bytes', 'Content-Length': String(object.length) });
  if (object.contentRange) res.set('Content-Range', object.contentRange);
  if (object.etag) res.set('ETag', object.etag);
  if (object.lastModified) res.set('Last-Modified', object.lastModified.toUTCString());
  if (req.method === 'HEAD') {
    object.body.destroy();
    res.end();
    return;
  }
  // A client that goes away ends the pipeline; nothing is left to answer then.
  await pipeline(object.body, res).catch((err: Error) => {
    if (!res.headersSent) next(err);
    else res.destroy(err);
  });
}
