import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { pipeline, type Readable, Transform } from 'node:stream';
import type { AddressPolicy } from './address-policy';
import { unbracket } from './address-policy';

/** Largest response body an outgoing call reads; a bigger one is cut off and reported. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

/** How an outgoing call ended. Redirects are answers like any other status: never followed. */
export type EgressOutcome =
  | { kind: 'response'; status: number; body: Buffer }
  | { kind: 'denied'; address: string }
  | { kind: 'too-large' }
  | { kind: 'timeout' }
  | { kind: 'connection' };

export interface EgressRequest {
  url: URL;
  method: 'POST' | 'GET';
  headers: Record<string, string | number>;
  body?: string;
  timeoutMs: number;
  policy: AddressPolicy;
  /** Name resolution; tests point names at loopback through it. */
  lookup?: LookupFunction;
}

class EgressDenied extends Error {
  constructor(readonly address: string) {
    super(`connections to ${address} are not allowed`);
  }
}

/** Ends a streamed body that grew past its limit (egressStream's readers can tell it apart). */
export class ResponseTooLarge extends Error {}

/**
 * Resolves as usual, then keeps only the addresses the policy allows. Checked here, when the
 * socket connects, so a name that resolved to a public address when the bot was saved and to a
 * private one now (DNS rebinding) is still refused.
 */
function guardedLookup(host: string, policy: AddressPolicy, resolve: LookupFunction) {
  const lookup: LookupFunction = (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, found) => {
      if (err) return callback(err, '', 0);
      const list = Array.isArray(found) ? found : [{ address: found, family: 4 }];
      const allowed = list.filter((a) => policy.allows(host, a.address));
      const [first] = allowed;
      if (first === undefined) {
        return callback(new EgressDenied(list[0]?.address ?? hostname), '', 0);
      }
      if (options.all) return callback(null, allowed);
      callback(null, first.address, first.family);
    });
  };
  return lookup;
}

/** Connects under the policy and sends the request; resolves once the response's head is in. */
function connect(
  req: EgressRequest,
  signal: AbortSignal,
): Promise<{ outgoing: http.ClientRequest; res: http.IncomingMessage }> {
  const host = unbracket(req.url.hostname);
  // Node connects to an IP literal without a lookup, so literals are checked here.
  if (isIP(host) && !req.policy.allows(host, host)) return Promise.reject(new EgressDenied(host));
  const lookup = guardedLookup(host, req.policy, req.lookup ?? (dns.lookup as LookupFunction));
  const isHttps = req.url.protocol === 'https:';
  const agent = isHttps ? new https.Agent({ lookup }) : new http.Agent({ lookup });
  const client = isHttps ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = client.request(
      req.url,
      { method: req.method, headers: req.headers, agent, signal },
      (res) => resolve({ outgoing, res }),
    );
    outgoing.on('error', reject);
    outgoing.on('close', () => agent.destroy());
    outgoing.end(req.body);
  });
}

async function send(req: EgressRequest, signal: AbortSignal) {
  const { outgoing, res } = await connect(req, signal);
  return new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_RESPONSE_BYTES) {
        outgoing.destroy(new ResponseTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    res.on('error', reject);
    outgoing.on('error', reject);
  });
}

function failure(err: unknown, signal: AbortSignal): Exclude<EgressOutcome, { kind: 'response' }> {
  if (err instanceof EgressDenied) return { kind: 'denied', address: err.address };
  if (err instanceof ResponseTooLarge) return { kind: 'too-large' };
  return signal.aborted ? { kind: 'timeout' } : { kind: 'connection' };
}

/**
 * Every call the server makes to an address a user chose goes through here: the address policy
 * at connect time, no redirects, at most MAX_RESPONSE_BYTES read, and one deadline for the
 * whole exchange.
 */
export async function egressRequest(req: EgressRequest): Promise<EgressOutcome> {
  const signal = AbortSignal.timeout(req.timeoutMs);
  try {
    return { kind: 'response', ...(await send(req, signal)) };
  } catch (err) {
    return failure(err, signal);
  }
}

/** A GET whose body is passed on as it arrives rather than read whole (the camo proxy's). */
export interface EgressStreamRequest extends Omit<EgressRequest, 'method' | 'body'> {
  /** Largest body passed on: a bigger declared length is refused, a longer body cut off. */
  maxBytes: number;
}

export type EgressStreamOutcome =
  | { kind: 'response'; status: number; headers: http.IncomingHttpHeaders; body: Readable }
  | Exclude<EgressOutcome, { kind: 'response' }>;

/**
 * Like egressRequest, for a body too big to hold: the policy at connect time, no redirects, and
 * one deadline for the whole exchange, body included. A body past `maxBytes` ends the stream
 * with an error, as does the deadline, so whoever pipes it on stops too.
 */
export async function egressStream(req: EgressStreamRequest): Promise<EgressStreamOutcome> {
  const signal = AbortSignal.timeout(req.timeoutMs);
  try {
    const { outgoing, res } = await connect({ ...req, method: 'GET' }, signal);
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > req.maxBytes) {
      outgoing.destroy();
      return { kind: 'too-large' };
    }
    let size = 0;
    const limited = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        if (size > req.maxBytes) done(new ResponseTooLarge());
        else done(null, chunk);
      },
    });
    pipeline(res, limited, () => outgoing.destroy());
    return { kind: 'response', status: res.statusCode ?? 0, headers: res.headers, body: limited };
  } catch (err) {
    return failure(err, signal);
  }
}
