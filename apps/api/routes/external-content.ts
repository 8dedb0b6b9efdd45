import { type Request, Router } from 'express';
import { pipeline } from 'node:stream';
import type { AppContext } from '../../../libs/core/context';
import { camoTarget } from '../../../libs/domain/external-content/camo-url';
import { fetchExternalContent } from '../../../libs/domain/external-content/fetch-external';

/**
 * What go-camo adds so a proxied file can never run as a page of this origin (an SVG with a
 * script, an HTML page claiming to be an image).
 */
const SAFETY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; img-src data:; style-src 'unsafe-inline'",
  'x-frame-options': 'deny',
};

const header = (value: string | string[] | undefined) =>
  typeof value === 'string' ? value : undefined;

/**
 * Zulip's camo proxy, `GET /external_content/<digest>/<hex url>`: the external images and
 * videos of messages, fetched by the server so readers' addresses stay with it. Only URLs the
 * Markdown renderer signed (digest: HMAC-SHA1 under CAMO_KEY) are fetched. Served when
 * CAMO_URI is set; no credentials, as browsers load these from <img> and <video>.
 */
export function externalContentRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get(
    '/external_content/:digest/:hexUrl',
    async (req: Request<{ digest: string; hexUrl: string }>, res, next) => {
      try {
        const camo = ctx.config.camo;
        if (!camo) return next();
        const target = camoTarget(camo, req.params.digest, req.params.hexUrl);
        const answer = target
          ? await fetchExternalContent(ctx.config, target, {
              range: header(req.headers.range),
              ifNoneMatch: header(req.headers['if-none-match']),
              ifModifiedSince: header(req.headers['if-modified-since']),
            })
          : ({ ok: false, status: 403, msg: 'Not a valid URL.' } as const);
        res.set(SAFETY_HEADERS);
        if (!answer.ok) {
          res.status(answer.status).json({ result: 'error', msg: answer.msg, code: 'BAD_REQUEST' });
          return;
        }
        res.status(answer.status).set(answer.headers);
        if (answer.body === null) {
          res.end();
          return;
        }
        // A body cut off (size, deadline) or a reader gone stops the other side too.
        pipeline(answer.body, res, () => undefined);
      } catch (err) {
        next(err);
      }
    },
  );
  return router;
}
