import busboy from 'busboy';
import type { RequestHandler } from 'express';
import { badRequest, requestTooLarge } from '../core/errors';

/**
 * Parses `multipart/form-data` bodies into `req.body` fields, as Django does for Zulip: some
 * clients (zulip-js, curl -F) send every POST that way. File parts are drained and ignored here;
 * upload endpoints read files with their own parser.
 */
/** Upload routes parse their own multipart bodies (files included); this parser leaves them alone. */
const OWN_PARSER_ROUTES = [
  /^\/(api\/v1|json)\/realm\/emoji\/[^/]+$/,
  /^\/(api\/v1|json)\/user_uploads$/,
  /^\/(api\/v1|json)\/users\/me\/avatar$/,
  /^\/(api\/v1|json)\/realm\/icon$/,
];

export function multipartFields(limits: { fieldSize: number; fields: number }): RequestHandler {
  return (req, _res, next) => {
    if (!req.is('multipart/form-data') || req.body !== undefined) return next();
    if (OWN_PARSER_ROUTES.some((re) => re.test(req.path))) return next();
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fieldSize: limits.fieldSize, fields: limits.fields },
      });
    } catch {
      return next(badRequest('Invalid request'));
    }
    const fields: Record<string, string> = {};
    // Busboy cuts a field or the field list short silently; a cut value must not be used.
    let tooLarge = false;
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) tooLarge = true;
      fields[name] = value;
    });
    parser.on('fieldsLimit', () => {
      tooLarge = true;
    });
    parser.on('file', (_name, stream) => stream.resume());
    parser.on('error', () => next(badRequest('Invalid request')));
    parser.on('close', () => {
      if (tooLarge) return next(requestTooLarge());
      req.body = fields;
      next();
    });
    req.pipe(parser);
  };
}
