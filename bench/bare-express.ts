/**
 * The yardstick of `bench/api-overhead.ts` (not a test), run as its own process so that it does
 * not share the load generator's event loop: a bare Express app answering `GET PATH` with a fixed
 * JSON body, for each `PATH=FILE` argument (FILE holds the body). Prints its port once listening.
 */
import express from 'express';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

const app = express();
for (const arg of process.argv.slice(2)) {
  const at = arg.indexOf('=');
  const body = JSON.parse(readFileSync(arg.slice(at + 1), 'utf8')) as Record<string, unknown>;
  app.get(arg.slice(0, at), (_req, res) => {
    res.json(body);
  });
}
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
