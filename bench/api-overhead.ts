/**
 * API overhead (not a test): `npx tsx bench/api-overhead.ts`.
 *
 * Side by side on this machine: a bare Express app answering `{"result":"success"}` and one `api`
 * process, each driven by BENCH_CONNECTIONS keep-alive connections (default 20) for
 * BENCH_SECONDS (default 10) per endpoint: the bare app, `GET /server_settings` and an
 * authenticated `GET /users/me` (Basic auth). Prints requests per second and p50 / p99.
 */
import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeRealm, makeUser } from '../test/factories';
import { startTier } from '../test/multiprocess/processes';
import { percentile, withScratchWorld } from './scratch';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

async function drive(url: string, headers: Record<string, string>) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const times: number[] = [];
  let errors = 0;
  const until = performance.now() + SECONDS * 1000;
  const one = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = http.get(url, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) errors++;
          times.push(performance.now() - started);
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
    });
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) await one();
    }),
  );
  agent.destroy();
  times.sort((a, b) => a - b);
  return {
    requestsPerSecond: Math.round(times.length / SECONDS),
    p50: Math.round(percentile(times, 50) * 10) / 10,
    p99: Math.round(percentile(times, 99) * 10) / 10,
    errors,
  };
}

async function main() {
  const bare = express();
  bare.get('/', (_req, res) => {
    res.json({ result: 'success' });
  });
  const server = await new Promise<http.Server>((resolve) => {
    const s = bare.listen(0, '127.0.0.1', () => resolve(s));
  });
  const bareUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const report = await withScratchWorld({}, async (ctx, config) => {
    const org = await makeRealm(ctx);
    const user = await makeUser(ctx, org.realm, { fullName: 'Caller' });
    const api = await startTier('api', config, { RATE_LIMIT_API_REQUESTS: '100000000' });
    try {
      const host = { Host: org.host };
      await drive(`${api.url}/api/v1/users/me`, { ...host, Authorization: user.auth });
      return {
        bare: await drive(bareUrl, {}),
        serverSettings: await drive(`${api.url}/api/v1/server_settings`, host),
        usersMe: await drive(`${api.url}/api/v1/users/me`, { ...host, Authorization: user.auth }),
      };
    } finally {
      await api.stop();
    }
  });
  server.close();
  process.stdout.write(
    `${JSON.stringify({ connections: CONNECTIONS, seconds: SECONDS, ...report })}\n`,
  );
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
