import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../../core/config';
import { addressPolicy } from '../../net/address-policy';
import { egressStream } from '../../net/egress';

const FETCH_TIMEOUT_MS = 120_000;

export type FetchOutcome = { ok: true; size: number } | { ok: false; reason: string };

/**
 * Downloads `url` into `dest` through the server's egress policy (the one outgoing webhooks
 * and the image proxy use: no private addresses unless OUTGOING_WEBHOOK_ALLOWED_HOSTS lists
 * them, no redirects followed), at most MAX_FILE_UPLOAD_SIZE_MIB.
 */
export async function fetchToFile(
  config: Pick<Config, 'outgoingWebhookAllowedHosts' | 'maxFileUploadSizeMib'>,
  url: string,
  dest: string,
  headers: Record<string, string> = {},
): Promise<FetchOutcome> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return { ok: false, reason: 'not an http(s) URL' };
  }
  const outcome = await egressStream({
    url: target,
    headers: { 'user-agent': 'chat-server-import', ...headers },
    timeoutMs: FETCH_TIMEOUT_MS,
    policy: addressPolicy(config.outgoingWebhookAllowedHosts),
    maxBytes: config.maxFileUploadSizeMib * 1024 * 1024,
  });
  switch (outcome.kind) {
    case 'denied':
      return { ok: false, reason: `the egress policy refuses ${outcome.address}` };
    case 'too-large':
      return { ok: false, reason: 'larger than MAX_FILE_UPLOAD_SIZE_MIB' };
    case 'timeout':
      return { ok: false, reason: 'timed out' };
    case 'connection':
      return { ok: false, reason: 'could not connect' };
    case 'response':
      break;
  }
  if (outcome.status !== 200) {
    outcome.body.destroy();
    return { ok: false, reason: `answered ${outcome.status}` };
  }
  let size = 0;
  outcome.body.on('data', (chunk: Buffer) => (size += chunk.length));
  try {
    await pipeline(outcome.body, createWriteStream(dest));
  } catch (err) {
    return { ok: false, reason: (err as Error).message || 'cut off' };
  }
  return { ok: true, size };
}
