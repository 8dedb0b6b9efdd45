import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../../libs/core/context';
import type { EventsTier } from '../../libs/events/events-tier';
import { consumeApiRequest, type HeaderSink } from '../../libs/http/rate-limit';
import { attachSession } from '../../libs/http/session';
import { errorResponse } from '../../libs/http/error-handler';
import { NO_SNIFF } from '../../libs/http/no-sniff';
import { trackRequest, type RequestLocals } from '../../libs/http/request-log';
import { pollQueue } from './poll-queue';
import { eventsPrincipals } from './principals';

const POLL_PATHS = new Set(['/api/v1/events', '/json/events']);
const EVENT_ID = /^-?\d{1,15}$/;

interface Poll {
  queueId: string;
  lastEventId?: number;
  dontBlock: boolean;
}

/**
 * The parameters of a poll whose query holds nothing but a queue id, a last event id and
 * dont_block, each once and well formed; null for any other request.
 */
export function wellFormedPoll(url: string): Poll | null {
  const mark = url.indexOf('?');
  if (mark < 0 || !POLL_PATHS.has(url.slice(0, mark))) return null;
  const query = new URLSearchParams(url.slice(mark + 1));
  const seen = new Set<string>();
  const poll: Poll = { queueId: '', dontBlock: false };
  for (const [key, value] of query) {
    if (seen.has(key)) return null;
    seen.add(key);
    if (key === 'queue_id' && value !== '') poll.queueId = value;
    else if (key === 'last_event_id' && EVENT_ID.test(value)) poll.lastEventId = Number(value);
    else if (key === 'dont_block' && (value === 'true' || value === 'false'))
      poll.dontBlock = value === 'true';
    else return null;
  }
  return poll.queueId ? poll : null;
}

/** Headers set before the head is written, kept in the flat list form `writeHead` takes. */
class HeaderList implements HeaderSink {
  readonly list: string[] = [];

  setHeader(name: string, value: string): void {
    this.list.push(name, value);
  }
}

/**
 * A poll's answer, `json` its body. A function of the module's rather than a closure made per
 * request: V8 keeps a closure's optimized code only while a closure that ran it lives, and the
 * answers' closures lost theirs at every full collection (see `BatchCommand`).
 */
function writeAnswer(
  res: ServerResponse,
  requestId: string,
  rateHeaders: HeaderList,
  status: number,
  headers: Record<string, string>,
  json: string,
): void {
  // One flat list, nothing set before: node's fast way to write a head.
  const head = [
    'Content-Type',
    'application/json; charset=utf-8',
    'Content-Length',
    String(Buffer.byteLength(json)),
    'X-Request-Id',
    requestId,
    ...NO_SNIFF,
    ...rateHeaders.list,
  ];
  for (const [name, value] of Object.entries(headers)) head.push(name, value);
  res.writeHead(status, head);
  res.end(json);
}

/**
 * The one poll handler, of the events tier's server and of `npm start`'s (apps/all): it serves the
 * requests that make up nearly all of the tier's traffic, a client's next poll of its queue,
 * before express sees them: the same credential check, rate limit, queue read, errors and
 * request log as the `GET /events` route, without the memory express adds to every request it
 * handles (about 7 KB, and thousands of polls wait at once). Returns false, having done nothing,
 * for any other request, a registering or malformed poll included, which the routes then answer.
 */
export function servePollsFirst(
  ctx: AppContext,
  tier: EventsTier,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const principals = eventsPrincipals(ctx);
  return (req, res) => {
    const bodyless =
      req.headers['content-length'] === undefined && !req.headers['transfer-encoding'];
    const poll = req.method === 'GET' && bodyless ? wellFormedPoll(req.url ?? '') : null;
    if (!poll) return false;
    const route = `${req.url!.startsWith('/json/') ? '/json' : '/api/v1'}/events`;
    const locals: RequestLocals = {};
    const requestId = trackRequest(ctx.log, req, res, locals, route);
    // The rate-limit headers wait here for the head: one set on the response beforehand would
    // put node's writeHead on its slow path (a setHeader and a merge per header, on every answer).
    const rateHeaders = new HeaderList();
    (async () => {
      if (route === '/json/events') await attachSession(ctx, req, true);
      const { user } = await principals.authenticate(ctx, req);
      locals.userId = user.id;
      await consumeApiRequest(ctx, user.id, rateHeaders);
      const polled = await pollQueue(ctx, tier, user, poll, res);
      if (polled !== null) {
        // Keys in the order JSON.stringify gave them from the object the route answers with.
        const body = `{"result":"success","msg":"","events":${polled.json},"queue_id":${JSON.stringify(poll.queueId)}}`;
        writeAnswer(res, requestId, rateHeaders, 200, {}, body);
      }
    })().catch((err: unknown) => {
      const { status, headers, error } = errorResponse(err, ctx.log, {
        method: req.method,
        path: route,
      });
      locals.apiError = { code: error.code, msg: error.message };
      if (!res.headersSent)
        writeAnswer(res, requestId, rateHeaders, status, headers, JSON.stringify(error.toJSON()));
    });
    return true;
  };
}
