import type { Logger } from '../core/log';
import { connectRedis } from './connect';
import { freePort } from '../../test/free-port';
import { spawnRedisServer } from '../../test/private-redis';

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

const until = async (what: () => boolean, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
};

describe('connectRedis', () => {
  it('notes a lost connection once, however many reconnections fail, and its return', async () => {
    const port = await freePort();
    let server = await spawnRedisServer(port);
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
      server = await spawnRedisServer(port);
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
