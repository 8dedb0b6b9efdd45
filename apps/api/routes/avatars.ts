import { Router, type Request, type RequestHandler } from 'express';
import mime from 'mime-types';
import multer from 'multer';
import type { AppContext } from '../../../libs/core/context';
import { badRequest, notFound } from '../../../libs/core/errors';
import { deleteAvatar, setAvatar } from '../../../libs/domain/users/set-avatar';
import { authed } from '../../../libs/http/route';
import { sendStored } from '../../../libs/http/send-stored';
import { uploadStore } from '../../../libs/storage/upload-store';

/** `POST` and `DELETE /users/me/avatar`. */
export function avatarRoutes(router: Router, ctx: AppContext): void {
  const maxMib = ctx.config.maxAvatarFileSizeMib;
  // In memory, bounded a little above the limit so the domain reports the size in Zulip's words.
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: (maxMib + 1) * 1024 * 1024, files: 2 },
  });
  const files: RequestHandler = (req, res, next) =>
    upload.any()(req, res, (err: unknown) => {
      if (!(err instanceof multer.MulterError)) return next(err);
      next(
        err.code === 'LIMIT_FILE_SIZE'
          ? badRequest(`Uploaded file is larger than the allowed limit of ${maxMib} MiB`)
          : badRequest('You must upload exactly one avatar.'),
      );
    });
  router.post(
    '/users/me/avatar',
    files,
    authed(ctx, {}, async ({ user, realm, req }) => ({
      ...(await setAvatar(ctx, {
        actor: user,
        realm,
        files: Array.isArray(req.files) ? req.files : [],
      })),
    })),
  );
  router.delete(
    '/users/me/avatar',
    authed(ctx, {}, async ({ user, realm }) => ({
      ...(await deleteAvatar(ctx, { actor: user, realm })),
    })),
  );
}

/**
 * `<realm_id>/<user_id>[-medium].png`, `<realm_id>/emoji/images/<file>`, the organization's icon
 * `<realm_id>/realm/icon.png`: nothing else.
 */
const AVATAR_KEY =
  /^\d+\/(\d+(-medium)?\.png|realm\/icon\.png|emoji\/images\/\d+\.(png|gif|jpg|webp))$/;

/**
 * `/user_avatars/...`: avatars, custom emoji and organization icons, public as Zulip serves them
 * (clients load them in `<img>` tags without credentials; the names carry a version or an ID).
 */
export function userAvatarRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get('/user_avatars/*key', async (req: Request<{ key: string[] }>, res, next) => {
    try {
      const key = req.params.key.join('/');
      if (!AVATAR_KEY.test(key)) throw notFound('Not found');
      res.type(mime.lookup(key) || 'application/octet-stream');
      res.set({
        'Cache-Control': 'public, max-age=86400',
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'",
      });
      await sendStored(req, res, next, uploadStore(ctx.config), key);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
