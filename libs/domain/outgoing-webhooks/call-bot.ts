import http from 'node:http';
import https from 'node:https';

/** How the POST to the bot ended. */
export type CallOutcome =
  | { kind: 'response'; status: number; body: Buffer }
  | { kind: 'timeout' }
  | { kind: 'connection' }
  | { kind: 'exception'; type: string; message: string };

export interface BotRequest {
  body: string;
  contentType: string;
}

function post(url: URL, request: BotRequest, signal: AbortSignal) {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': request.contentType,
          'Content-Length': Buffer.byteLength(request.body),
          'User-Agent': 'ZulipOutgoingWebhook',
        },
        signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}

/**
 * POSTs to the bot with a timeout covering the whole exchange. Node's http client rather than
 * fetch, which turns some statuses into exceptions (a 407). As in Zulip (python-requests),
 * every status is an answer (a redirect too: it is not followed); a URL the client cannot use
 * is an exception of its own; any other failure (refused, reset, DNS, TLS) is a connection
 * error, which is worth retrying.
 */
export async function callBot(
  baseUrl: string,
  request: BotRequest,
  timeoutSeconds: number,
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
  const signal = AbortSignal.timeout(timeoutSeconds * 1000);
  try {
    return { kind: 'response', ...(await post(url, request, signal)) };
  } catch {
    return signal.aborted ? { kind: 'timeout' } : { kind: 'connection' };
  }
}
