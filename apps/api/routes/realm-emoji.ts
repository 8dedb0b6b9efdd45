import type { RequestHandler, Router } from 'express';
import multer from 'multer';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { deactivateRealmEmoji } from '../../../libs/domain/emoji/deactivate-realm-emoji';
import { listRealmEmoji } from '../../../libs/domain/emoji/list-realm-emoji';
import {
  MAX_EMOJI_FILE_SIZE_MIB,
  uploadRealmEmoji,
} from '../../../libs/domain/emoji/upload-realm-emoji';
import { badRequest } from '../../../libs/core/errors';
import { uploadedFileType } from '../../../libs/http/upload-type';
import { authed } from '../../../libs/http/route';

const emojiName = { emoji_name: P.string().required() };

export function realmEmojiRoutes(router: Router, ctx: AppContext): void {
  // Files are held in memory (bounded a little above the limit so the domain reports the size).
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: (MAX_EMOJI_FILE_SIZE_MIB + 1) * 1024 * 1024, files: 5 },
  });
  const files: RequestHandler = (req, res, next) =>
    upload.any()(req, res, (err: unknown) => {
      if (err instanceof multer.MulterError) {
        next(
          err.code === 'LIMIT_FILE_SIZE'
            ? badRequest(
                `Uploaded file is larger than the allowed limit of ${MAX_EMOJI_FILE_SIZE_MIB} MiB`,
              )
            : badRequest('You must upload exactly one file.'),
        );
      } else next(err);
    });
  router.get(
    '/realm/emoji',
    authed(ctx, {}, async ({ realm }) => ({ emoji: await listRealmEmoji(ctx.db, realm.id) })),
  );
  router.post(
    '/realm/emoji/:emoji_name',
    files,
    authed(ctx, emojiName, async ({ user, params, req }) => {
      const uploaded = (Array.isArray(req.files) ? req.files : []).map((f) => ({
        ...f,
        mimetype: uploadedFileType(f),
      }));
      await uploadRealmEmoji(ctx, { actor: user, name: params.emoji_name, files: uploaded });
    }),
  );
  router.delete(
    '/realm/emoji/:emoji_name',
    authed(ctx, emojiName, async ({ user, params }) => {
      await deactivateRealmEmoji(ctx, { actor: user, name: params.emoji_name });
    }),
  );
}
