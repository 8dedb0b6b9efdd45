import type { Server } from 'node:http';
import type { Waker } from '../events/waker';

/**
 * Stops an HTTP server that holds long polls: it takes no new connection, each waiting poll
 * answers at once with an empty events list on a closing connection, and after `graceMs` the
 * connections still open are closed. Zulip's clients poll again at once after an empty list,
 * where an answerless close costs them a second's back-off and a logged error (see the
 * draining section of docs/reliability.md).
 */
export async function closeServingPolls(
  server: Server,
  waker: Waker,
  graceMs = 1000,
): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  waker.drain();
  const deadline = Date.now() + graceMs;
  while (waker.pollCount > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // Answers just written get a moment to leave before their sockets are closed.
  await new Promise((resolve) => setTimeout(resolve, 50));
  server.closeAllConnections();
  await closed;
}
