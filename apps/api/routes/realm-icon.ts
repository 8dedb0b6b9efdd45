import type { RequestHandler, Router } from 'express';
import multer from 'multer';
import type { AppContext } from '../../../libs/core/context';
import { badRequest } from '../../../libs/core/errors';
import { MAX_IMAGE_FILE_SIZE_MIB } from '../../../libs/domain/register/state/realm';
import { deleteRealmIcon, setRealmIcon } from '../../../libs/domain/realms/set-realm-icon';
import { authed } from '../../../libs/http/route';

/** `POST` and `DELETE /realm/icon`: the organization's icon, as Zulip's web app sets it. */
export function realmIconRoutes(router: Router, ctx: AppContext): void {
  // In memory, bounded a little above the limit so the domain reports the size in Zulip's words.
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: (MAX_IMAGE_FILE_SIZE_MIB + 1) * 1024 * 1024, files: 2 },
  });
  const files: RequestHandler = (req, res, next) =>
    upload.any()(req, res, (err: unknown) => {
      if (!(err instanceof multer.MulterError)) return next(err);
      next(
        err.code === 'LIMIT_FILE_SIZE'
          ? badRequest(
              `Uploaded file is larger than the allowed limit of ${MAX_IMAGE_FILE_SIZE_MIB} MiB`,
            )
          : badRequest('You must upload exactly one icon.'),
      );
    });
  router.post(
    '/realm/icon',
    files,
    authed(ctx, {}, async ({ user, realm, req }) => ({
      ...(await setRealmIcon(ctx, {
        actor: user,
        realm,
        files: Array.isArray(req.files) ? req.files : [],
      })),
    })),
  );
  router.delete(
    '/realm/icon',
    authed(ctx, {}, async ({ user, realm }) => ({
      ...(await deleteRealmIcon(ctx, { actor: user, realm })),
    })),
  );
}
