import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './free-port';

/** Whether something accepts connections on the loopback port. */
export const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('error', () => resolve(false));
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
  });

/**
 * A redis-server of the test's own, without persistence, that the test may stop, start again
 * (empty) and flush: the shared Redis is never flushed or restarted.
 */
export interface PrivateRedis {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** A redis-server without persistence on `port`, once it accepts connections (5 s at most). */
export async function spawnRedisServer(port: number): Promise<ChildProcess> {
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100 && !(await listening(port)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return server;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let server: ChildProcess | null = null;
  // Started once: a second redis-server could not bind the port, and the first would be left
  // running with nothing to stop it.
  const start = async () => {
    if (server && server.exitCode === null && server.signalCode === null) return;
    server = await spawnRedisServer(port);
  };
  const stop = async () => {
    const running = server;
    server = null;
    if (running && running.exitCode === null) {
      await new Promise((resolve) => running.once('exit', resolve).kill('SIGTERM'));
    }
  };
  await start();
  return { url: `redis://127.0.0.1:${port}/0`, start, stop };
}
