import type { Readable } from 'node:stream';
import type { Config } from '../../core/config';
import { addressPolicy } from '../../net/address-policy';
import { egressStream } from '../../net/egress';
import { at } from '../../core/at';

/** Redirects followed, each hop held to the egress policy again (go-camo's default). */
const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** What message previews load: images, videos and audio (go-camo as Zulip runs it). */
const MEDIA_TYPE_RE = /^(?:image|video|audio)\/[\w.+-]+$/i;
/** Headers of the remote answer the client gets; nothing else of the remote host reaches it. */
const PASSED_ON = [
  'content-type',
  'content-length',
  'content-range',
  'accept-ranges',
  'etag',
  'last-modified',
  'cache-control',
  'expires',
];
/** Headers a browser sends that the remote host sees: ranges and revalidation, no cookies. */
export interface ClientConditions {
  range?: string;
  ifNoneMatch?: string;
  ifModifiedSince?: string;
}

export type ExternalContent =
  | { ok: true; status: number; headers: Record<string, string>; body: Readable | null }
  | { ok: false; status: number; msg: string };

const refused = (status: number, msg: string): ExternalContent => ({ ok: false, status, msg });

function passedOn(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of PASSED_ON) {
    const value = headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/**
 * The camo proxy's fetch: the remote image, video or audio at `url`, through the egress policy
 * (OUTGOING_WEBHOOK_ALLOWED_HOSTS exempts hosts from it), within CAMO_MAX_SIZE_MIB and
 * CAMO_TIMEOUT_SECONDS per hop. The reader's address, cookies and credentials never reach the
 * remote host; a failure is a status and a reason.
 */
export async function fetchExternalContent(
  config: Pick<Config, 'camo' | 'outgoingWebhookAllowedHosts'>,
  url: URL,
  conditions: ClientConditions,
): Promise<ExternalContent> {
  const camo = config.camo;
  if (!camo) return refused(404, 'Not Found');
  const policy = addressPolicy(config.outgoingWebhookAllowedHosts);
  const headers: Record<string, string> = {
    'user-agent': 'chat-server-camo',
    accept: 'image/*, video/*, audio/*',
  };
  if (conditions.range) headers.range = conditions.range;
  if (conditions.ifNoneMatch) headers['if-none-match'] = conditions.ifNoneMatch;
  if (conditions.ifModifiedSince) headers['if-modified-since'] = conditions.ifModifiedSince;
  let target = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const outcome = await egressStream({
      url: target,
      headers,
      timeoutMs: camo.timeoutMs,
      policy,
      maxBytes: camo.maxBytes,
    });
    switch (outcome.kind) {
      case 'denied':
        return refused(403, 'The address is not public');
      case 'too-large':
        return refused(502, 'The remote content is too large');
      case 'timeout':
        return refused(504, 'The remote server did not answer in time');
      case 'connection':
        return refused(502, 'The remote server could not be reached');
      case 'response':
        break;
    }
    const { status, body } = outcome;
    if (REDIRECTS.has(status)) {
      body.destroy();
      const location = outcome.headers.location;
      let next: URL | undefined;
      try {
        next = location ? new URL(location, target) : undefined;
      } catch {
        next = undefined;
      }
      if (!next || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
        return refused(502, 'The remote server redirected nowhere usable');
      }
      target = next;
      continue;
    }
    if (status === 304) {
      body.destroy();
      return { ok: true, status, headers: passedOn(outcome.headers), body: null };
    }
    if (status !== 200 && status !== 206) {
      body.destroy();
      return status === 404 || status === 410
        ? refused(404, 'Not Found')
        : refused(502, `The remote server answered ${status}`);
    }
    const type = at(outcome.headers['content-type']?.split(';') ?? [''], 0).trim();
    if (!MEDIA_TYPE_RE.test(type)) {
      body.destroy();
      return refused(415, 'Not an image, video or audio file');
    }
    return { ok: true, status, headers: passedOn(outcome.headers), body };
  }
  return refused(502, 'Too many redirects');
}
