import bodyParser from 'body-parser';
import type { RequestHandler } from 'express';
import { BODY_LIMITS, bodyLimit, MAX_PARAMETERS } from './body-limits';
import { multipartFields } from './multipart-fields';

/**
 * Form, JSON and multipart parsers that hold each request to its route's body limit (body-parser
 * takes one fixed limit, so there is one set of parsers per limit).
 */
export function bodyParsers(): RequestHandler {
  const byLimit = new Map(
    BODY_LIMITS.map((limit) => [
      limit,
      [
        bodyParser.urlencoded({ extended: false, limit, parameterLimit: MAX_PARAMETERS }),
        bodyParser.json({ limit }),
        multipartFields({ fieldSize: limit, fields: MAX_PARAMETERS }),
      ] as [RequestHandler, RequestHandler, RequestHandler],
    ]),
  );
  return (req, res, next) => {
    // Most requests (GETs) carry no body: nothing for any parser to do.
    if (req.headers['content-length'] === undefined && !req.headers['transfer-encoding']) {
      return next();
    }
    const [form, json, multipart] = byLimit.get(bodyLimit(req.method, req.path))!;
    form(req, res, (err?: unknown) => {
      if (err) return next(err);
      json(req, res, (err2?: unknown) => {
        if (err2) return next(err2);
        multipart(req, res, next);
      });
    });
  };
}
