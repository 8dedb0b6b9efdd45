import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../../libs/core/context';
import type { EventsTier } from '../../libs/events/events-tier';
import { consumeApiRequest, type HeaderSink } from '../../libs/http/rate-limit';
import { attachSession } from '../../libs/http/session';
import { errorResponse } from '../../libs/http/error-handler';
import { NO_SNIFF } from '../../libs/http/no-sniff';
import {
  requestIdOf,
  trackRequest,
  type RequestLocals,
  type TrackedRequest,
} from '../../libs/http/request-log';
import {
  pollEvents,
  type GetEventsInput,
  type PollReply,
  type QueueOwner,
} from '../../libs/events/get-events';
import type { PolledEvents } from '../../libs/events/polled-events';
import { afterPoll } from './after-poll';
import { eventsPrincipals, type Pollers } from './principals';

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

/** Before authentication: a poll's user is read only after it is set. */
const NOBODY: QueueOwner = { id: 0 };

/**
 * One poll served before express sees it, from its request to its answer. Its whole state is
 * this one object, whose methods every poll shares: thousands of polls wait at once, and what each
 * keeps alive while it waits is copied by young-generation collections and then promoted. A
 * closure per poll kept a context and its own copies of what it captured, and lost its optimized
 * code at every full collection (see `BatchCommand`).
 */
class ServedPoll implements GetEventsInput, PollReply, HeaderSink {
  user = NOBODY;
  readonly queueId: string;
  readonly lastEventId: number | undefined;
  readonly dontBlock: boolean;
  readonly heartbeatSeconds: number;
  private readonly locals: RequestLocals = {};
  private readonly tracked: TrackedRequest;
  /**
   * The rate-limit headers, waiting for the head: one set on the response beforehand would put
   * node's writeHead on its slow path (a setHeader and a merge per header, on every answer).
   */
  private readonly rateHeaders: string[] = [];

  constructor(
    private readonly ctx: AppContext,
    private readonly tier: EventsTier,
    private readonly req: IncomingMessage,
    readonly client: ServerResponse,
    private readonly route: string,
    poll: Poll,
  ) {
    this.queueId = poll.queueId;
    this.lastEventId = poll.lastEventId;
    this.dontBlock = poll.dontBlock;
    this.heartbeatSeconds = ctx.config.heartbeatSeconds;
    this.tracked = trackRequest(ctx.log, req, client, this.locals, route);
  }

  setHeader(name: string, value: string): void {
    this.rateHeaders.push(name, value);
  }

  /**
   * Checks the caller, then polls the queue, which answers through `answered` or `failed`; never
   * rejects. Nothing is suspended on the poll while it waits (see `pollEvents`).
   */
  async serve(principals: Pollers): Promise<void> {
    const { ctx, req } = this;
    try {
      if (this.route === '/json/events') await attachSession(ctx, req, true);
      const { user } = await principals.authenticate(ctx, req);
      this.user = user;
      this.locals.userId = user.id;
      await consumeApiRequest(ctx, user.id, this);
    } catch (err) {
      return this.failed(err);
    }
    pollEvents(this.tier.store, this.tier.waker, this, this);
  }

  answered(polled: PolledEvents | null): void {
    afterPoll(this.tier, this.client);
    if (polled === null) return;
    // Keys in the order JSON.stringify gave them from the object the route answers with.
    const body = `{"result":"success","msg":"","events":${polled.json},"queue_id":${JSON.stringify(this.queueId)}}`;
    this.answer(200, {}, body);
  }

  failed(err: unknown): void {
    afterPoll(this.tier, this.client);
    const { status, headers, error } = errorResponse(err, this.ctx.log, {
      method: this.req.method,
      path: this.route,
    });
    this.locals.apiError = { code: error.code, msg: error.message };
    if (!this.client.headersSent) this.answer(status, headers, JSON.stringify(error.toJSON()));
  }

  private answer(status: number, headers: Record<string, string>, json: string): void {
    // One flat list, nothing set before: node's fast way to write a head.
    const head = [
      'Content-Type',
      'application/json; charset=utf-8',
      'Content-Length',
      String(Buffer.byteLength(json)),
      'X-Request-Id',
      requestIdOf(this.tracked),
      ...NO_SNIFF,
      ...this.rateHeaders,
    ];
    for (const [name, value] of Object.entries(headers)) head.push(name, value);
    this.client.writeHead(status, head);
    this.client.end(json);
  }
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
    const route = req.url!.startsWith('/json/') ? '/json/events' : '/api/v1/events';
    void new ServedPoll(ctx, tier, req, res, route, poll).serve(principals);
    return true;
  };
}
