import { type Request, Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { badRequest } from '../../../libs/core/errors';
import { accessUpload } from '../../../libs/domain/attachments/access-upload';
import { camoUrl } from '../../../libs/domain/external-content/camo-url';
import { realmUrl } from '../../../libs/domain/realms/realm-url';
import { authenticate } from '../../../libs/http/auth';
import { consumeApiRequest } from '../../../libs/http/rate-limit';
import { sessionAuth } from '../../../libs/http/session';

const UPLOADS = '/user_uploads/';

const queryText = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * Zulip's `GET /thumbnail?url=<url>&size=thumbnail|full` (backend_serve_thumbnail), where image
 * previews point when the camo proxy is off: a redirect to the image. An upload is checked
 * against the reader first (not found, or 403) and a link to this organization's own URL goes to
 * its path; an external image goes through the camo proxy when it is on, else to its own URL.
 * Unlike Zulip, a reader must be signed in (session cookie or Basic auth) even for external
 * images, so the route is no open redirect for anyone on the Internet.
 */
export function thumbnailRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get('/thumbnail', sessionAuth(ctx, false), async (req: Request, res, next) => {
    try {
      const { user, realm } = await authenticate(ctx, req);
      await consumeApiRequest(ctx, user.id, res);
      const url = queryText(req.query.url);
      const size = queryText(req.query.size);
      if (url === null) throw badRequest("Missing 'url' argument");
      if (size === null) throw badRequest("Missing 'size' argument");
      const own = new URL(realmUrl(realm.stringId, ctx.config));
      // Zulip strips the leading slash of upload paths before quoting them into the link.
      let target: URL;
      try {
        target = new URL(url.startsWith('user_uploads/') ? `/${url}` : url, own);
      } catch {
        throw badRequest('Invalid URL');
      }
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        throw badRequest('Invalid URL');
      }
      if (target.origin === own.origin) {
        if (target.pathname.startsWith(UPLOADS)) {
          const pathId = decodeURIComponent(target.pathname.slice(UPLOADS.length));
          await accessUpload(ctx, user, pathId);
        }
        res.redirect(302, `${target.pathname}${target.search}`);
        return;
      }
      const camo = ctx.config.camo;
      res.redirect(302, camo ? camoUrl(camo, target.href) : target.href);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
