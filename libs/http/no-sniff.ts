import type { RequestHandler } from 'express';

/**
 * `X-Content-Type-Options: nosniff` on every answer: a browser then takes a JSON answer (or an
 * error page) for what its Content-Type says, never for HTML or script it might guess from the body.
 */
export const NO_SNIFF = ['X-Content-Type-Options', 'nosniff'] as const;

export const noSniff: RequestHandler = (_req, res, next) => {
  res.setHeader(...NO_SNIFF);
  next();
};
