/**
 * A local cluster on loopback, from the compiled build: Debian's nginx running
 * deploy/nginx/chat.conf (with this cluster's ports) in front of 2 api, 2 events and 2 worker
 * processes, each with its own log file. `npm run cluster` starts it and stops it cleanly on
 * Ctrl-C; the cluster and chaos tests drive it through `startCluster`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderNginxConfig } from './nginx-config';
import { EVENTS_NODE_FLAGS } from '../../apps/events/node-flags';

const ROOT = path.resolve(__dirname, '../..');

export type Kind = 'api' | 'events' | 'worker';

export interface ClusterOptions {
  /** Logs, the rendered nginx configuration and nginx's scratch files. */
  dir: string;
  /** nginx listens on basePort; api i on basePort+10+i, events i on +20+i, metrics on +30... */
  basePort: number;
  /** Passed to every process: DATABASE_URL, REDIS_URL, REDIS_PREFIX, EXTERNAL_HOST, ... */
  env: Record<string, string>;
  replicas?: Record<Kind, number>;
  /**
   * The checkout whose build (dist/, built beforehand) and deploy/nginx/chat.conf run, e.g. an
   * older one for the "before" of a paired benchmark; this one by default (built if stale).
   */
  root?: string;
  /**
   * Poll affinity (docs/scaling.md): events replica i runs with `EVENTS_REPLICA=i/n` and nginx
   * sends each poll to the home replica of its queue's partition.
   */
  pollAffinity?: boolean;
  /** Extra node flags per tier, e.g. `--cpu-prof` (after the tier's own flags). */
  nodeArgs?: Partial<Record<Kind, string[]>>;
}

export interface ClusterProcess {
  name: string;
  kind: Kind;
  /** The API or events port; null for a worker. */
  port: number | null;
  /** `/metrics`, `/healthz` and `/readyz`. */
  metricsPort: number;
  logFile: string;
  child: ChildProcess;
  /** Settles when the process exits, with its exit code or signal. */
  exited: Promise<string>;
}

export interface Cluster {
  url: string;
  processes: ClusterProcess[];
  nginx: ChildProcess;
  byName(name: string): ClusterProcess;
  /** Sends a signal; resolves when the process has exited. */
  kill(name: string, signal: NodeJS.Signals): Promise<string>;
  /** Starts an exited process again on its ports and waits until it is ready. */
  restart(name: string): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full));
    else if (/\.(ts|tsx|css|html|lua)$/.test(entry.name))
      newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/** Builds dist/ when it is missing or older than the sources, so the cluster runs this code. */
export function ensureBuilt(): void {
  const entry = path.join(ROOT, 'dist/apps/all/main.js');
  // Copied after tsc succeeded: a failed build leaves fresh compiled files, but not these.
  const copied = path.join(ROOT, 'dist/prisma/migrations');
  const web = path.join(ROOT, 'dist/apps/web/index.html');
  const sources = Math.max(...['apps', 'libs'].map((d) => newestMtime(path.join(ROOT, d))));
  if (
    existsSync(entry) &&
    existsSync(copied) &&
    existsSync(web) &&
    statSync(entry).mtimeMs >= sources
  )
    return;
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.js')], { stdio: 'inherit' });
}

/** Debian's nginx, installed with apt-get when missing. */
export function ensureNginx(): string {
  const binary = '/usr/sbin/nginx';
  if (existsSync(binary)) return binary;
  const apt = (...args: string[]) =>
    execFileSync('apt-get', args, {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  try {
    apt('install', '-y', 'nginx');
  } catch {
    // No package lists yet, or stale ones.
    apt('update');
    apt('install', '-y', 'nginx');
  }
  return binary;
}

async function waitUntil(
  what: string,
  url: string,
  child: ChildProcess,
  logFile: string,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${what} exited early; log ${logFile}:\n${tail(logFile)}`);
    }
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`${what} not ready; log ${logFile}:\n${tail(logFile)}`);
    await sleep(200);
  }
}

const tail = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-20).join('\n') : '';

const exitOf = (child: ChildProcess) =>
  new Promise<string>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve(child.signalCode ?? `code ${child.exitCode}`);
    } else child.once('exit', (code, signal) => resolve(signal ?? `code ${code}`));
  });

function nginxMainConfig(dir: string): string {
  const tmp = (name: string) => `${path.join(dir, 'nginx-tmp', name)}`;
  return [
    'daemon off;',
    'worker_processes 1;',
    `pid ${path.join(dir, 'nginx.pid')};`,
    `error_log ${path.join(dir, 'nginx-error.log')} warn;`,
    'events { worker_connections 4096; }',
    'http {',
    `  access_log ${path.join(dir, 'nginx-access.log')};`,
    `  client_body_temp_path ${tmp('body')};`,
    `  proxy_temp_path ${tmp('proxy')};`,
    `  fastcgi_temp_path ${tmp('fastcgi')};`,
    `  uwsgi_temp_path ${tmp('uwsgi')};`,
    `  scgi_temp_path ${tmp('scgi')};`,
    `  include ${path.join(dir, 'chat.conf')};`,
    '}',
    '',
  ].join('\n');
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { dir, basePort } = options;
  const replicas = options.replicas ?? { api: 2, events: 2, worker: 2 };
  mkdirSync(path.join(dir, 'nginx-tmp'), { recursive: true });
  const root = options.root ?? ROOT;
  if (!options.root) ensureBuilt();
  const nginxBinary = ensureNginx();

  const baseEnv = {
    ...process.env,
    NODE_ENV: 'production',
    BIND_HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    ...options.env,
  };
  execFileSync(process.execPath, [path.join(root, 'dist/apps/cli/main.js'), 'migrate'], {
    cwd: root,
    env: baseEnv,
    stdio: ['ignore', 'ignore', 'inherit'],
  });

  const plan: Omit<ClusterProcess, 'child' | 'exited'>[] = [];
  let metricsPort = basePort + 30;
  for (const kind of ['api', 'events', 'worker'] as const) {
    for (let i = 0; i < replicas[kind]; i++) {
      const name = `${kind}-${i + 1}`;
      const port =
        kind === 'api' ? basePort + 10 + i : kind === 'events' ? basePort + 20 + i : null;
      plan.push({
        name,
        kind,
        port,
        metricsPort: metricsPort++,
        logFile: path.join(dir, `${name}.log`),
      });
    }
  }

  const launch = (p: Omit<ClusterProcess, 'child' | 'exited'>): ClusterProcess => {
    const log = openSync(p.logFile, 'a');
    const flags = [
      ...(p.kind === 'events' ? EVENTS_NODE_FLAGS : []),
      ...(options.nodeArgs?.[p.kind] ?? []),
    ];
    const child = spawn(
      process.execPath,
      [...flags, path.join(root, `dist/apps/${p.kind}/main.js`)],
      {
        cwd: root,
        env: {
          ...baseEnv,
          ...(p.port !== null ? { API_PORT: String(p.port), EVENTS_PORT: String(p.port) } : {}),
          METRICS_PORT: String(p.metricsPort),
          ...(options.pollAffinity && p.kind === 'events'
            ? { EVENTS_REPLICA: `${Number(p.name.split('-')[1]) - 1}/${replicas.events}` }
            : {}),
        },
        stdio: ['ignore', log, log],
      },
    );
    return { ...p, child, exited: exitOf(child) };
  };
  const ready = (p: ClusterProcess) =>
    waitUntil(p.name, `http://127.0.0.1:${p.metricsPort}/readyz`, p.child, p.logFile);

  const processes = plan.map(launch);
  const stopAll = async () => {
    await Promise.all(processes.map((p) => stopProcess(p.child, p.exited)));
  };
  try {
    await Promise.all(processes.map(ready));
  } catch (err) {
    await stopAll();
    throw err;
  }

  const conf = renderNginxConfig(readFileSync(path.join(root, 'deploy/nginx/chat.conf'), 'utf8'), {
    listen: `127.0.0.1:${basePort}`,
    api: processes.filter((p) => p.kind === 'api').map((p) => `127.0.0.1:${p.port}`),
    events: processes.filter((p) => p.kind === 'events').map((p) => `127.0.0.1:${p.port}`),
    ...(options.pollAffinity
      ? { affinity: { partitions: Number(options.env.DISPATCH_PARTITIONS ?? 8) } }
      : {}),
  });
  writeFileSync(path.join(dir, 'chat.conf'), conf);
  writeFileSync(path.join(dir, 'nginx.conf'), nginxMainConfig(dir));
  const nginxLog = path.join(dir, 'nginx-error.log');
  const nginx = spawn(
    nginxBinary,
    ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', nginxLog],
    { stdio: ['ignore', 'ignore', openSync(nginxLog, 'a')] },
  );
  const nginxExited = exitOf(nginx);
  const url = `http://127.0.0.1:${basePort}`;
  try {
    await waitUntil('nginx', `${url}/healthz`, nginx, nginxLog);
  } catch (err) {
    await stopAll();
    await stopProcess(nginx, nginxExited, 'SIGQUIT');
    throw err;
  }

  const byName = (name: string) => {
    const found = processes.find((p) => p.name === name);
    if (!found) throw new Error(`no process ${name}`);
    return found;
  };
  return {
    url,
    processes,
    nginx,
    byName,
    async kill(name, signal) {
      const p = byName(name);
      p.child.kill(signal);
      return p.exited;
    },
    async restart(name) {
      const index = processes.findIndex((p) => p.name === name);
      const old = byName(name);
      if (old.child.exitCode === null && old.child.signalCode === null) {
        throw new Error(`${name} is still running`);
      }
      processes[index] = launch(old);
      await ready(processes[index]);
    },
    async stop() {
      // Processes first, so nginx never answers 502 for a process still being stopped.
      await stopAll();
      await stopProcess(nginx, nginxExited, 'SIGQUIT');
    },
  };
}

/** SIGTERM (or `signal`), then SIGKILL after 20 s; resolves with how it exited. */
async function stopProcess(
  child: ChildProcess,
  exited: Promise<string>,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<string> {
  if (child.exitCode !== null || child.signalCode !== null) return exited;
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const how = await exited;
  clearTimeout(timer);
  return how;
}

/** `npm run cluster`: CLUSTER_PORT (19080), CLUSTER_DIR (var/cluster), the usual variables. */
async function main() {
  const env = process.env;
  const dir = path.resolve(ROOT, env.CLUSTER_DIR ?? 'var/cluster');
  const basePort = Number(env.CLUSTER_PORT ?? 19080);
  mkdirSync(dir, { recursive: true });
  const keyFile = path.join(dir, 'secret-key');
  if (!existsSync(keyFile)) writeFileSync(keyFile, randomBytes(32).toString('hex'));
  const cluster = await startCluster({
    dir,
    basePort,
    env: {
      DATABASE_URL: env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/chat_cluster',
      REDIS_PREFIX: env.REDIS_PREFIX ?? 'cluster:',
      EXTERNAL_HOST: env.EXTERNAL_HOST ?? `127.0.0.1:${basePort}`,
      SECRET_KEY: env.SECRET_KEY ?? readFileSync(keyFile, 'utf8'),
    },
  });
  const lines = [
    `cluster up at ${cluster.url} (nginx, deploy/nginx/chat.conf); logs in ${dir}`,
    ...cluster.processes.map(
      (p) =>
        `  ${p.name.padEnd(9)} pid ${p.child.pid} ${p.port ? `port ${p.port} ` : ''}metrics ${p.metricsPort}`,
    ),
    'Ctrl-C stops it.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void cluster.stop().then(() => {
      process.stdout.write('cluster stopped\n');
      process.exit(0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
