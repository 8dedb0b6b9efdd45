/**
 * A Redis and a PostgreSQL of the chaos run's own, on loopback, so that restarting them touches
 * nothing else (the machine's 6379 and 5432 serve every test run). Both are configured as an
 * operator should run them for this server: Redis with an append-only file (BullMQ's jobs and the
 * event queues live there; `appendfsync everysec`, `noeviction`), PostgreSQL with its defaults
 * (fsync on) and trust authentication on loopback only.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const PG_BIN = '/usr/lib/postgresql/15/bin';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once something accepts TCP connections on the port. */
async function waitForPort(port: number, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`${what} not listening on ${port}`);
    await sleep(100);
  }
}

export interface PrivateStore {
  url: string;
  /** Stops the server as its service manager would (clean shutdown); resolves once it is down. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and deletes its data. */
  destroy(): Promise<void>;
}

export interface PrivateRedis extends PrivateStore {
  /** Deletes the append-only file while stopped: the next start is empty, as without persistence. */
  wipe(): void;
}

export async function startPrivateRedis(port: number, logFile: string): Promise<PrivateRedis> {
  const dir = mkdtempSync(path.join(tmpdir(), 'chat-chaos-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'yes',
    '--appendfsync',
    'everysec',
    '--maxmemory-policy',
    'noeviction',
  ];
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  const start = async () => {
    const log = openSync(logFile, 'a');
    const started = spawn('redis-server', args, { stdio: ['ignore', log, log] });
    child = started;
    exited = new Promise((resolve) => started.once('exit', () => resolve()));
    await waitForPort(port, 'redis-server');
  };
  const stop = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    // SIGTERM is SHUTDOWN: the append-only file is flushed first.
    child.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    stop,
    start,
    wipe() {
      rmSync(path.join(dir, 'appendonlydir'), { recursive: true, force: true });
    },
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A PostgreSQL 15 cluster in a temporary directory, run as the postgres user. */
export async function startPrivatePostgres(port: number, logFile: string): Promise<PrivateStore> {
  const server = postgresDir('chat-chaos-pg-');
  mkdirSync(server.data);
  chownSync(server.data, server.uid, server.gid);
  server.asPostgres('initdb', '-D', server.data, '-U', 'postgres', '-A', 'trust', '--no-sync');
  return server.serve(port, logFile);
}

/**
 * A temporary directory owned by postgres, its `data` folder not yet made, and how to run a
 * server on it: started with pg_ctl on `port` (loopback only), stopped as `systemctl restart`
 * does (fast shutdown: open sessions are terminated), its log copied to `logFile` at the end.
 */
function postgresDir(prefix: string) {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const data = path.join(dir, 'data');
  const { uid, gid } = postgresUser();
  chownSync(dir, uid, gid);
  const asPostgres = (binary: string, ...args: string[]): string =>
    execFileSync('runuser', ['-u', 'postgres', '--', path.join(PG_BIN, binary), ...args], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'inherit'],
    }).toString();
  const serve = async (port: number, logFile: string): Promise<PrivateStore> => {
    // pg_ctl's log file must be writable by postgres; it is copied to logFile's place at the end.
    const pgLog = path.join(dir, 'postgres.log');
    const options = [
      `-p ${port}`,
      "-c listen_addresses='127.0.0.1'",
      `-c unix_socket_directories='${dir}'`,
      '-c max_connections=200',
    ].join(' ');
    const start = async () => {
      asPostgres('pg_ctl', '-D', data, '-l', pgLog, '-o', options, '-w', 'start');
      await waitForPort(port, 'postgres');
    };
    const stop = async () => {
      asPostgres('pg_ctl', '-D', data, '-m', 'fast', '-w', 'stop');
    };
    await start();
    return {
      url: `postgresql://postgres@127.0.0.1:${port}`,
      stop,
      start,
      async destroy() {
        await stop().catch(() => undefined);
        execFileSync('cp', [pgLog, logFile]);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  };
  return { dir, data, uid, gid, asPostgres, serve };
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * A streaming replica of a private PostgreSQL (`pg_basebackup -R`: a standby that follows the
 * primary's WAL), on its own port; `pauseReplay`/`resumeReplay` stop and restart its replay, to
 * make it lag.
 */
export interface PrivateReplica extends PrivateStore {
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
}

export async function startPrivateReplica(
  primaryPort: number,
  port: number,
  logFile: string,
): Promise<PrivateReplica> {
  const server = postgresDir('chat-pg-replica-');
  server.asPostgres(
    'pg_basebackup',
    ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', server.data],
    ...['-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
  );
  const store = await server.serve(port, logFile);
  const psql = (sql: string) =>
    server.asPostgres('psql', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-Atc', sql);
  return {
    ...store,
    async pauseReplay() {
      psql('SELECT pg_wal_replay_pause()');
    },
    async resumeReplay() {
      psql('SELECT pg_wal_replay_resume()');
    },
  };
}
