import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import type { Logger } from '../core/log';
import { connectRedis } from './connect';

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = {
    lines,
    error: (_c: string, message: string) => lines.push(`error ${message}`),
    warn: (_c: string, message: string) => lines.push(`warn ${message}`),
    info: (_c: string, message: string) => lines.push(`info ${message}`),
    debug: (_c: string, message: string) => lines.push(`debug ${message}`),
    child: () => log,
  };
  return log;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const until = async (what: () => boolean, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
};

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('error', () => resolve(false));
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
  });

/** A Redis of the test's own, without persistence, that the test can stop and start. */
async function redisServer(port: number): Promise<ChildProcess> {
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', ''],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100 && !(await listening(port)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return server;
}

describe('connectRedis', () => {
  it('notes a lost connection once, however many reconnections fail, and its return', async () => {
    const port = await freePort();
    let server = await redisServer(port);
    const log = recordingLog();
    const redis = connectRedis(
      { redisUrl: `redis://127.0.0.1:${port}/0`, redisCluster: null },
      { log },
    );
    try {
      await until(() => redis.status === 'ready');
      const stopped = server;
      await new Promise((resolve) => stopped.once('exit', resolve).kill('SIGTERM'));
      // ioredis retries after 50, 100, 150... ms: several attempts fail in a second.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(log.lines).toEqual(['debug Redis unreachable; reconnecting']);
      server = await redisServer(port);
      await until(() => log.lines.length > 1);
      expect(log.lines).toEqual([
        'debug Redis unreachable; reconnecting',
        'debug Redis reachable again',
      ]);
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
      server.kill('SIGTERM');
    }
  });
});
