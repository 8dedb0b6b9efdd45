import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import type { Config } from '../../core/config';
import { addressPolicy } from '../../net/address-policy';
import { egressStream, ResponseTooLarge } from '../../net/egress';
import { SERVER_VERSION } from '../version';
import { at } from '../../core/at';

/** Redirects followed, each hop held to the egress policy again (as the camo proxy does). */
const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const HTML_TYPE_RE = /^(?:text\/html|application\/xhtml\+xml)$/i;
/** How a page without a Content-Type shows it is HTML, in its first bytes (Zulip sniffs too). */
const HTML_START_RE = /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|meta|title)\b/i;

/** Why a page gave nothing to preview. */
export type PageRefusal =
  | 'invalid-url'
  | 'denied'
  | 'too-large'
  | 'timeout'
  | 'connection'
  | 'status'
  | 'not-html'
  | 'redirects';

export type FetchedPage = { ok: true; url: URL; html: string } | { ok: false; reason: PageRefusal };

/** Refusals that may pass: the page is worth asking for again soon. */
export const TRANSIENT: ReadonlySet<PageRefusal> = new Set(['timeout', 'connection']);

const refused = (reason: PageRefusal): FetchedPage => ({ ok: false, reason });

/** A link the preview may fetch (relative to `base`): http(s), and no credentials in it. */
function targetOf(link: string | undefined, base?: URL): URL | null {
  if (!link) return null;
  try {
    const url = new URL(link, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.username || url.password ? null : url;
  } catch {
    return null;
  }
}

/** The body as text, in the charset the Content-Type names (UTF-8 when it names none we know). */
function decode(body: Buffer, contentType: string): string {
  const charset = /;\s*charset="?([\w.:-]+)"?/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** The whole body, or why it could not be read within the limits. */
async function readBody(body: Readable, deadline: number): Promise<Buffer | PageRefusal> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } catch (err) {
    if (err instanceof ResponseTooLarge) return 'too-large';
    // The deadline's timer may fire a moment before the clock reads it.
    return Date.now() >= deadline - 50 ? 'timeout' : 'connection';
  }
}

export interface FetchPageOptions {
  /** Name resolution; tests point names at loopback through it. */
  lookup?: LookupFunction;
}

/**
 * Zulip's preview fetch, held to the server's egress policy: the address every name resolves to
 * is checked when connecting (private, loopback, link-local and other non-public ranges refused
 * unless OUTGOING_WEBHOOK_ALLOWED_HOSTS lists them), at most MAX_REDIRECTS redirects, each
 * checked again, one deadline for the whole exchange (URL_PREVIEW_TIMEOUT_SECONDS), at most
 * URL_PREVIEW_MAX_SIZE_KIB read, and only HTML. No cookies or credentials are sent.
 */
export async function fetchPage(
  config: Pick<Config, 'urlPreview' | 'outgoingWebhookAllowedHosts'>,
  link: string,
  options: FetchPageOptions = {},
): Promise<FetchedPage> {
  let target = targetOf(link);
  if (!target) return refused('invalid-url');
  const { timeoutMs, maxBytes } = config.urlPreview;
  const policy = addressPolicy(config.outgoingWebhookAllowedHosts);
  const deadline = Date.now() + timeoutMs;
  const headers = {
    'user-agent': `Mozilla/5.0 (compatible; ChatServerURLPreview/${SERVER_VERSION})`,
    accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1',
  };
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const timeLeft = deadline - Date.now();
    if (timeLeft <= 0) return refused('timeout');
    const outcome = await egressStream({
      url: target,
      headers,
      timeoutMs: timeLeft,
      policy,
      maxBytes,
      ...options,
    });
    if (outcome.kind !== 'response') return refused(outcome.kind);
    const { status, body } = outcome;
    if (REDIRECTS.has(status)) {
      body.destroy();
      const next = targetOf(outcome.headers.location, target);
      if (!next) return refused('invalid-url');
      target = next;
      continue;
    }
    if (status !== 200) {
      body.destroy();
      return refused('status');
    }
    const type = outcome.headers['content-type'] ?? '';
    const mime = at(type.split(';'), 0).trim();
    if (mime !== '' && !HTML_TYPE_RE.test(mime)) {
      body.destroy();
      return refused('not-html');
    }
    const read = await readBody(body, deadline);
    if (typeof read === 'string') return refused(read);
    const html = decode(read, type);
    if (mime === '' && !HTML_START_RE.test(html.slice(0, 2048))) return refused('not-html');
    return { ok: true, url: target, html };
  }
  return refused('redirects');
}
