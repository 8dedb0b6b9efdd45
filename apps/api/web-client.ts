import express, { Router, type Request, type Response } from 'express';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../../libs/core/context';
import { ensureCsrfCookie } from '../../libs/http/session';

/**
 * Where `npm run build` puts the web client (apps/web, built by Vite): beside the compiled API in
 * dist/, or dist/ itself when the sources run under tsx.
 */
function webRoot(): string | null {
  const candidates = [
    path.join(__dirname, '..', 'web'),
    path.join(__dirname, '..', '..', 'dist', 'apps', 'web'),
  ];
  // apps/web itself holds the unbuilt page: a built one has its assets beside it.
  return candidates.find((dir) => existsSync(path.join(dir, 'assets'))) ?? null;
}

/**
 * No inline script may run, and the page talks only to its own origin. Inline styles stay
 * allowed: rendered messages (KaTeX) carry style attributes.
 */
export const WEB_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The web client's page at `/` and its hashed assets under `/assets/`. */
export function webClientRoutes(ctx: AppContext): Router {
  const router = Router();
  const root = webRoot();
  if (!root) {
    ctx.log.warn('boot', 'web client not built (npm run build): / answers 404');
    return router;
  }
  const index = readFileSync(path.join(root, 'index.html'));
  router.use(
    '/assets',
    express.static(path.join(root, 'assets'), { immutable: true, maxAge: '365d', index: false }),
  );
  router.get(['/', '/login'], (req: Request, res: Response) => {
    ensureCsrfCookie(ctx, req, res);
    res
      .set({
        'Content-Security-Policy': WEB_CSP,
        'Cache-Control': 'no-cache',
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'same-origin',
      })
      .type('html')
      .send(index);
  });
  return router;
}
