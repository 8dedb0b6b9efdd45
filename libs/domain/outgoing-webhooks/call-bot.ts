import type { LookupFunction } from 'node:net';
import type { AddressPolicy } from '../../net/address-policy';
import { egressRequest, MAX_RESPONSE_BYTES } from '../../net/egress';

/** How the POST to the bot ended. */
export type CallOutcome =
  | { kind: 'response'; status: number; body: Buffer }
  | { kind: 'denied' }
  | { kind: 'timeout' }
  | { kind: 'connection' }
  | { kind: 'exception'; type: string; message: string };

export interface BotRequest {
  body: string;
  contentType: string;
}

export interface CallOptions {
  timeoutSeconds: number;
  policy: AddressPolicy;
  lookup?: LookupFunction;
}

/**
 * POSTs to the bot through the egress policy, with a timeout covering the whole exchange. As in
 * Zulip (python-requests), every status is an answer (a redirect too: it is not followed); a URL
 * the client cannot use is an exception of its own; an address the policy denies is what
 * Zulip's egress proxy reports; any other failure (refused, reset, DNS, TLS) is a connection
 * error, which is worth retrying.
 */
export async function callBot(
  baseUrl: string,
  request: BotRequest,
  options: CallOptions,
): Promise<CallOutcome> {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (err) {
    return { kind: 'exception', type: 'TypeError', message: (err as Error).message };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      kind: 'exception',
      type: 'TypeError',
      message: `Unsupported URL scheme "${url.protocol}"`,
    };
  }
  const outcome = await egressRequest({
    url,
    method: 'POST',
    headers: {
      'Content-Type': request.contentType,
      'Content-Length': Buffer.byteLength(request.body),
      'User-Agent': 'ZulipOutgoingWebhook',
    },
    body: request.body,
    timeoutMs: options.timeoutSeconds * 1000,
    policy: options.policy,
    lookup: options.lookup,
  });
  if (outcome.kind === 'denied') return { kind: 'denied' };
  if (outcome.kind === 'too-large') {
    return {
      kind: 'exception',
      type: 'ResponseTooLarge',
      message: `The response was larger than ${MAX_RESPONSE_BYTES} bytes.`,
    };
  }
  return outcome;
}
