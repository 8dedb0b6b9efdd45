import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../core/context';
import { ApiError, unauthorized } from '../core/errors';
import { indexSession, sessionRecordKey } from '../domain/auth/user-sessions';

/**
 * Browser sessions, for the web client's `/json/` requests (Zulip's model): an HttpOnly session
 * cookie names a record in Redis, and every state-changing request must repeat the session's CSRF
 * token in `X-CSRFToken` (readable by our own pages from the `csrftoken` cookie, never sent by a
 * cross-site form). The record holds what Basic auth would have given (the email and the API key's
 * hash, never the key), so the session's user is checked exactly as an API client is.
 */
export interface Session {
  userId: number;
  email: string;
  apiKeyHash: string;
  csrf: string;
}

export const SESSION_COOKIE = 'sessionid';
export const CSRF_COOKIE = 'csrftoken';
export const CSRF_HEADER = 'x-csrftoken';
/** Zulip's SESSION_COOKIE_AGE: two weeks. */
export const SESSION_SECONDS = 14 * 24 * 3600;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const sessions = new WeakMap<object, Session>();

/** The session a request was authenticated by, if `sessionAuth` found one. */
export const sessionOf = (req: object): Session | undefined => sessions.get(req);

/** What the principal cache tells credentials apart by, for a session-authenticated request. */
export function sessionCredentialKey(req: object): string {
  const session = sessions.get(req);
  return session ? `session ${session.email}:${session.apiKeyHash}` : '';
}

export const newToken = () => randomBytes(32).toString('base64url');

const sessionKey = sessionRecordKey;

export const csrfFailed = (reason: string) =>
  new ApiError('CSRF_FAILED', `CSRF error: ${reason}`, {}, 'forbidden');

const notLoggedIn = () =>
  unauthorized('Not logged in: API authentication or user session required');

/** One cookie's value from the request's Cookie header. */
export function cookieValue(req: Pick<IncomingMessage, 'headers'>, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
}

export function sameToken(given: string | null | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `Set-Cookie` attributes: HttpOnly for the session, Secure when the site is https. */
export function cookieOptions(ctx: AppContext, httpOnly: boolean, maxAgeSeconds: number) {
  return {
    httpOnly,
    sameSite: 'lax' as const,
    secure: ctx.config.externalScheme === 'https',
    path: '/',
    maxAge: maxAgeSeconds * 1000,
  };
}

export async function createSession(
  ctx: AppContext,
  fields: Omit<Session, 'csrf'>,
): Promise<{ token: string; session: Session }> {
  const token = newToken();
  const session: Session = { ...fields, csrf: newToken() };
  const key = sessionKey(ctx, token);
  await ctx.redis.set(key, JSON.stringify(session), 'EX', SESSION_SECONDS);
  await indexSession(ctx, fields.userId, key, SESSION_SECONDS);
  return { token, session };
}

export async function deleteSession(ctx: AppContext, token: string): Promise<void> {
  await ctx.redis.del(sessionKey(ctx, token));
}

async function readSession(ctx: AppContext, token: string): Promise<Session | null> {
  const stored = await ctx.redis.get(sessionKey(ctx, token));
  return stored ? (JSON.parse(stored) as Session) : null;
}

/**
 * Finds the request's session and remembers it for the credential checks (`libs/http/auth`).
 * A request with its own `Authorization` header is an API client's and is left to Basic auth.
 * `required`: refuse a request with neither. State-changing methods must carry the CSRF token.
 */
export async function attachSession(
  ctx: AppContext,
  req: Pick<IncomingMessage, 'headers' | 'method'>,
  required: boolean,
): Promise<void> {
  if (req.headers.authorization) return;
  const token = cookieValue(req, SESSION_COOKIE);
  const session = token ? await readSession(ctx, token) : null;
  if (!session) {
    if (required) throw notLoggedIn();
    return;
  }
  if (!SAFE_METHODS.has(req.method ?? 'GET')) {
    const given = req.headers[CSRF_HEADER];
    if (typeof given !== 'string' || !given) throw csrfFailed('CSRF token missing.');
    if (!sameToken(given, session.csrf)) throw csrfFailed('CSRF token incorrect.');
  }
  sessions.set(req, session);
}

/** Express middleware for `attachSession`. */
export function sessionAuth(ctx: AppContext, required = true): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    attachSession(ctx, req, required).then(() => next(), next);
  };
}

/** The session token of a request, for logging out. */
export const sessionToken = (req: Pick<IncomingMessage, 'headers'>) =>
  cookieValue(req, SESSION_COOKIE);

/** Gives a page a CSRF token cookie for the login form, if it has none yet. */
export function ensureCsrfCookie(ctx: AppContext, req: Request, res: ServerResponse & Response) {
  if (!cookieValue(req, CSRF_COOKIE)) {
    res.cookie(CSRF_COOKIE, newToken(), cookieOptions(ctx, false, 365 * 24 * 3600));
  }
}
