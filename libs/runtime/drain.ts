import type { Server } from 'node:http';
import type { Waker } from '../events/waker';
import { pause } from '../core/pause';

/**
 * Stops an HTTP server that holds long polls: it takes no new connection, each waiting poll (and
 * each that starts waiting meanwhile) answers at once with an empty events list on a closing
 * connection, and the requests in flight get up to `graceMs` to finish before the connections
 * still open are closed. Zulip's clients poll again at once after an empty list, where a
 * connection closed without an answer costs them a second's back-off and a logged error (see the
 * draining section of docs/reliability.md).
 */
export async function closeServingPolls(
  server: Server,
  waker: Waker,
  graceMs = 3000,
): Promise<void> {
  const closed = new Promise<boolean>((resolve) => server.close(() => resolve(true)));
  waker.drain();
  // A keep-alive connection is idle once its answer is out: close it then, not at the deadline.
  const idleSweep = setInterval(() => server.closeIdleConnections(), 50);
  const inTime = await Promise.race([closed, pause(graceMs).then(() => false)]);
  clearInterval(idleSweep);
  if (!inTime) {
    server.closeAllConnections();
    await closed;
  }
}
