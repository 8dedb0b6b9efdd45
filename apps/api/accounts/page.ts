import type { Request, Response } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { ApiError } from '../../../libs/core/errors';
import { httpStatus } from '../../../libs/http/error-handler';
import {
  CSRF_COOKIE,
  cookieOptions,
  cookieValue,
  csrfFailed,
  newToken,
  sameToken,
} from '../../../libs/http/session';
import { WEB_CSP } from '../web-client';

/** The form field Django's pages carry their CSRF token in (Zulip's forms post it). */
export const CSRF_FIELD = 'csrfmiddlewaretoken';

export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The CSRF token for a server-rendered form: the `csrftoken` cookie's, made now when the browser
 * has none. The form repeats it in a hidden field, which another site cannot read.
 */
export function formCsrf(ctx: AppContext, req: Request, res: Response): string {
  const existing = cookieValue(req, CSRF_COOKIE);
  if (existing) return existing;
  const token = newToken();
  res.cookie(CSRF_COOKIE, token, cookieOptions(ctx, false, 365 * 24 * 3600));
  return token;
}

export function checkFormCsrf(req: Request): void {
  const cookie = cookieValue(req, CSRF_COOKIE);
  if (!cookie) throw csrfFailed('CSRF cookie not set.');
  const body = (req.body ?? {}) as Record<string, unknown>;
  const given = typeof body[CSRF_FIELD] === 'string' ? (body[CSRF_FIELD] as string) : null;
  if (!sameToken(given, cookie)) throw csrfFailed('CSRF token incorrect.');
}

/** A small page of the sign-in pages, under the web client's CSP (no script at all). */
export function sendPage(
  res: Response,
  status: number,
  title: string,
  body: string,
  referrer = 'same-origin',
): void {
  res
    .status(status)
    .set({
      'Content-Security-Policy': WEB_CSP,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': referrer,
    })
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ` +
        `content="width=device-width"><title>${escapeHtml(title)}</title></head><body>` +
        `<main class="account-page"><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`,
    );
}

/** A refusal shown as a page: the ApiError's message and status; anything else goes on. */
export function sendErrorPage(res: Response, err: unknown, title: string): boolean {
  if (!(err instanceof ApiError)) return false;
  sendPage(res, httpStatus(err), title, `<p role="alert">${escapeHtml(err.message)}</p>`);
  return true;
}
