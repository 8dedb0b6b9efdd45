import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  Router,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import Joi from 'joi';
import multer from 'multer';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { accessUpload, type ServableFile } from '../../../libs/domain/attachments/access-upload';
import { deleteAttachment } from '../../../libs/domain/attachments/delete-attachment';
import { listAttachments } from '../../../libs/domain/attachments/list-attachments';
import { INLINE_MIME_TYPES, spoolDir } from '../../../libs/domain/attachments/storage';
import {
  fileForTemporaryUrl,
  temporaryUploadUrl,
} from '../../../libs/domain/attachments/temporary-url';
import { fileTooLarge, uploadFile } from '../../../libs/domain/attachments/upload-file';
import { authenticate } from '../../../libs/http/auth';
import type { ParamsOf } from '../../../libs/http/params';
import { badRequest } from '../../../libs/core/errors';
import { uploadedFileType } from '../../../libs/http/upload-type';
import { consumeApiRequest } from '../../../libs/http/rate-limit';
import { authed } from '../../../libs/http/route';
import { sendStored } from '../../../libs/http/send-stored';
import { uploadStore, type UploadStore } from '../../../libs/storage/upload-store';

const uploadPathSpec = {
  realm_id_str: P.string(Joi.string()).required(),
  /** Express's `*filename` wildcard: the path's remaining segments. */
  filename: P.array(P.string(Joi.string()), { min: 1 }).required(),
};
type UploadPath = ParamsOf<typeof uploadPathSpec>;

const pathIdOf = (params: UploadPath) => `${params.realm_id_str}/${params.filename.join('/')}`;

/** Spools the one file of a `POST /user_uploads` to disk, refusing more than the size limit. */
function spoolUpload(ctx: AppContext): RequestHandler {
  const maxMib = ctx.config.maxFileUploadSizeMib;
  const upload = multer({
    storage: multer.diskStorage({
      destination: (_req, _file, done) => {
        const dir = spoolDir(ctx.config);
        mkdir(dir, { recursive: true }).then(
          () => done(null, dir),
          (err: Error) => done(err, dir),
        );
      },
    }),
    limits: { fileSize: maxMib * 1024 * 1024, files: 1 },
    // Clients send UTF-8 file names as they are.
    defParamCharset: 'utf8',
  });
  return (req, res, next) =>
    upload.any()(req, res, (err: unknown) => {
      // Whatever the answer, no spooled file outlives the request (a stored one was moved). A
      // file cut short by a malformed body was never spooled and has no path.
      res.on('close', () => {
        for (const f of Array.isArray(req.files) ? req.files : []) {
          if (f.path) void rm(f.path, { force: true });
        }
      });
      if (!(err instanceof multer.MulterError)) return next(err);
      if (err.code === 'LIMIT_FILE_SIZE') return next(fileTooLarge(maxMib));
      if (err.code === 'LIMIT_FILE_COUNT') {
        return next(badRequest('You may only upload one file at a time'));
      }
      next(badRequest('Invalid request'));
    });
}

/** RFC 6266 `Content-Disposition`, with an ASCII fallback beside the exact UTF-8 name. */
function disposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * Sends an uploaded file. Only types browsers show safely are inline; the rest download, and
 * nothing in a file may run scripts or be sniffed as another type.
 */
function sendUpload(
  req: Request,
  res: Response,
  next: NextFunction,
  store: UploadStore,
  file: ServableFile,
): Promise<void> {
  res.type(file.contentType ?? (path.extname(file.fileName) || 'application/octet-stream'));
  const type = String(res.get('Content-Type')).replace(/;.*/s, '').trim().toLowerCase();
  res.set({
    'Content-Disposition': disposition(
      INLINE_MIME_TYPES.has(type) ? 'inline' : 'attachment',
      file.fileName,
    ),
    // As Zulip's nginx does: audio, video and PDF files still play when opened on their own.
    'Content-Security-Policy': "default-src 'none'; media-src 'self'; object-src 'self'",
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'private, immutable',
  });
  return sendStored(req, res, next, store, file.key);
}

/** `/api/v1` routes: upload, temporary download URLs, and the user's attachment list. */
export function uploadRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/user_uploads',
    // Credentials are checked before a byte is spooled, and again (cheaply) by `authed`.
    (req, _res, next) => void authenticate(ctx, req).then(() => next(), next),
    spoolUpload(ctx),
    authed(ctx, {}, async ({ user, realm, req }) => {
      const files = Array.isArray(req.files) ? req.files : [];
      return {
        ...(await uploadFile(ctx, {
          actor: user,
          realm,
          files: files.map((f) => ({
            fieldName: f.fieldname,
            originalName: f.originalname,
            contentType: uploadedFileType(f),
            size: f.size,
            spoolPath: f.path,
          })),
        })),
      };
    }),
  );
  router.get(
    '/user_uploads/:realm_id_str/*filename',
    authed(ctx, uploadPathSpec, async ({ user, params }) => {
      const { attachment } = await accessUpload(ctx, user, pathIdOf(params));
      return { url: temporaryUploadUrl(ctx.config, attachment.pathId, new Date()) };
    }),
  );
  router.get(
    '/attachments',
    authed(ctx, {}, async ({ user }) => ({ ...(await listAttachments(ctx.db, user)) })),
  );
  router.delete(
    '/attachments/:attachment_id',
    authed(ctx, { attachment_id: P.int().required() }, async ({ user, params }) => {
      await deleteAttachment(ctx, { actor: user, attachmentId: params.attachment_id });
    }),
  );
}

/**
 * The file URLs outside `/api/v1`: `/user_uploads/<path_id>` with Basic auth (how Zulip's mobile
 * apps load images in messages) and the signed `/user_uploads/temporary/...` URLs, which need
 * no credentials.
 */
export function uploadFileRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get(
    '/user_uploads/temporary/:token/:filename',
    async (req: Request<{ token: string; filename: string }>, res, next) => {
      try {
        const { token, filename } = req.params;
        const file = await fileForTemporaryUrl(ctx, token, filename, new Date());
        await sendUpload(req, res, next, uploadStore(ctx.config), file);
      } catch (err) {
        next(err);
      }
    },
  );
  router.get(
    '/user_uploads/:realm_id_str/*filename',
    async (req: Request<UploadPath>, res, next) => {
      try {
        const { user } = await authenticate(ctx, req);
        await consumeApiRequest(ctx, user.id, res);
        const { file } = await accessUpload(ctx, user, pathIdOf(req.params));
        await sendUpload(req, res, next, uploadStore(ctx.config), file);
      } catch (err) {
        next(err);
      }
    },
  );
  return router;
}
