/**
 * The outgoing-webhook bot server of the chaos scenarios (chaos-jobs.ts, chaos-workers.ts): it
 * counts the calls per message, the key a bot deduplicates on, and answers each one slowly so
 * that calls are still in flight when the scenario strikes.
 */
import { createServer } from 'node:http';

export interface WebhookReceiver {
  /** Calls received per message id. */
  calls: Map<number, number>;
  /** Stops listening and drops the calls still waiting for their answer. */
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1:`port`; each call is answered `delayMs` after it arrived, with the JSON
 * of `reply(messageId)`.
 */
export async function startWebhookReceiver(
  port: number,
  delayMs: number,
  reply: (messageId: number) => object,
): Promise<WebhookReceiver> {
  const calls = new Map<number, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const id = (JSON.parse(body) as { message: { id: number } }).message.id;
      calls.set(id, (calls.get(id) ?? 0) + 1);
      setTimeout(() => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(reply(id)));
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    calls,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
