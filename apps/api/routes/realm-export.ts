import { Router, type Request, type Router as ExpressRouter } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { notFound } from '../../../libs/core/errors';
import { P } from '../../../libs/core/schema';
import { deleteRealmExport } from '../../../libs/domain/realm-exports/delete-export';
import { ExportStatus } from '../../../libs/domain/realm-exports/format-exports';
import { listRealmExports } from '../../../libs/domain/realm-exports/list-exports';
import { requestRealmExport } from '../../../libs/domain/realm-exports/request-export';
import { authed } from '../../../libs/http/route';
import { sendStored } from '../../../libs/http/send-stored';
import { uploadStore } from '../../../libs/storage/upload-store';

/** Zulip's organization exports: request, list, delete (administrators; docs/import-export.md). */
export function realmExportRoutes(router: ExpressRouter, ctx: AppContext): void {
  router.post(
    '/export/realm',
    authed(ctx, {}, async ({ user, realm }) => requestRealmExport(ctx, { actor: user, realm })),
  );
  router.get(
    '/export/realm',
    authed(ctx, {}, async ({ user, realm }) => ({
      exports: await listRealmExports(ctx, { actor: user, realm }),
    })),
  );
  router.delete(
    '/export/realm/:export_id',
    authed(ctx, { export_id: P.int().required() }, async ({ user, realm, params }) => {
      await deleteRealmExport(ctx, { actor: user, realm, exportId: params.export_id });
    }),
  );
}

const EXPORT_KEY = /^exports\/\d+\/[A-Za-z0-9_-]{32}\/[A-Za-z0-9._-]+\.tar\.gz$/;

/**
 * `/user_avatars/exports/...`: a finished export's tarball, where Zulip serves it: anyone with
 * the URL (its random segment is the secret), and only while the export is listed as done.
 */
export function realmExportFileRoutes(ctx: AppContext): ExpressRouter {
  const files = Router();
  files.get('/user_avatars/exports/*rest', async (req: Request<{ rest: string[] }>, res, next) => {
    try {
      const key = `exports/${req.params.rest.join('/')}`;
      if (!EXPORT_KEY.test(key)) throw notFound('Not found');
      const row = await ctx.db.realmExport.findFirst({
        where: { exportPath: key, status: ExportStatus.SUCCEEDED },
        select: { id: true },
      });
      if (!row) throw notFound('Not found');
      res.type('application/gzip');
      res.set({ 'Cache-Control': 'private, no-store', 'X-Content-Type-Options': 'nosniff' });
      await sendStored(req, res, next, uploadStore(ctx.config), key);
    } catch (err) {
      next(err);
    }
  });
  return files;
}
