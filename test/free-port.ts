import { createServer } from 'node:net';

/**
 * Ports below Linux's ephemeral range (32768-60999). A port the system hands out for listen(0)
 * and that the caller binds a moment later can meanwhile become the local port of any outgoing
 * connection on the box (a parallel test's fetch, say), and the later bind fails with EADDRINUSE.
 * Below that range only a listener can take it, and the random draw keeps parallel tests apart.
 */
const FIRST_PORT = 20_000;
const PORT_COUNT = 12_000;

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A loopback port that nothing listens on now, for a process the caller is about to start. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = FIRST_PORT + Math.floor(Math.random() * PORT_COUNT);
    if (await bindable(port)) return port;
  }
  throw new Error('no free port found below the ephemeral range');
}
