import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { makeRealm, makeUser, type TestRealm, type TestUser } from '../factories';
import { startTestContext, type TestContext } from '../harness';
import { spawnRedisServer } from '../private-redis';
import { freePort } from '../free-port';

/**
 * Issue 23, point 4: every tier started while PostgreSQL and Redis are out of reach stays up,
 * answers `/readyz` with 503 naming both causes, logs JSON only (one warning per store), becomes
 * ready once the stores appear, without a restart, and exits promptly on SIGTERM; a worker exits
 * promptly on SIGTERM during a Redis outage; a draining process answers waiting polls with an
 * empty events list.
 */
jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../..');
const PG_PORT = Number(new URL(process.env.TEST_PG_URL ?? 'postgresql://127.0.0.1:5432').port);

type Kind = 'api' | 'events' | 'worker' | 'all';

interface Running {
  child: ChildProcess;
  output: string[];
  ops: string;
  http: string;
  /** SIGTERM, then resolves with the exit code and how long the exit took. */
  terminate(): Promise<{ code: number | null; ms: number }>;
}

/** Starts `apps/<kind>/main.ts` against the given stores; resolves once it answers `/healthz`. */
async function startProcess(
  kind: Kind,
  env: { databaseUrl: string; redisUrl: string; redisPrefix: string },
): Promise<Running> {
  const opsPort = await freePort();
  const httpPort = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, `apps/${kind}/main.ts`)],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: env.databaseUrl,
        REDIS_URL: env.redisUrl,
        REDIS_CLUSTER_NODES: '',
        REDIS_PREFIX: env.redisPrefix,
        EXTERNAL_HOST: 'chat.test',
        BIND_HOST: '127.0.0.1',
        API_PORT: String(httpPort),
        EVENTS_PORT: String(httpPort),
        METRICS_PORT: String(opsPort),
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
        BCRYPT_ROUNDS: '4',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output: string[] = [];
  child.stdout?.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  const ops = `http://127.0.0.1:${opsPort}`;
  await until(async () => {
    if (child.exitCode !== null) throw new Error(`${kind} exited:\n${output.join('')}`);
    return (await fetch(`${ops}/healthz`).catch(() => null))?.ok === true;
  }, 30_000);
  return {
    child,
    output,
    ops,
    http: `http://127.0.0.1:${httpPort}`,
    async terminate() {
      const started = Date.now();
      const exited = new Promise<number | null>((resolve) => {
        if (child.exitCode !== null) resolve(child.exitCode);
        else child.once('exit', (code) => resolve(code));
      });
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return { code, ms: Date.now() - started };
    },
  };
}

async function until(what: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const readyz = async (ops: string) => {
  const res = await fetch(`${ops}/readyz`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** The long-polls the process reports waiting (`chat_events_polls_waiting`, summed). */
const pollsWaiting = async (ops: string) => {
  const text = await (await fetch(`${ops}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('chat_events_polls_waiting'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
};

/** A Redis of the test's own on `port`, without persistence, that the test can stop. */

const stopRedis = (server: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (server.exitCode !== null || server.signalCode !== null) return resolve();
    server.once('exit', () => resolve());
    server.kill('SIGKILL');
  });

/**
 * PostgreSQL appearing on `port`: a TCP relay to the machine's server, started when the test says
 * (the shared server itself is never stopped).
 */
async function relayPostgres(port: number): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(PG_PORT, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Every line the process wrote is a JSON log line. */
function logLines(output: string[]): { level: string; message: string; store?: string }[] {
  return output
    .join('')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as { level: string; message: string; store?: string };
      } catch {
        throw new Error(`a line that is not JSON: ${line}`);
      }
    });
}

let t: TestContext;

beforeAll(async () => {
  t = await startTestContext();
});
afterAll(() => t.close());

describe.each<Kind>(['api', 'events', 'worker', 'all'])('%s started without its stores', (kind) => {
  it('stays up and unready, then becomes ready when they appear, and stops on SIGTERM', async () => {
    const [redisPort, pgPort] = [await freePort(), await freePort()];
    const database = new URL(t.config.databaseUrl);
    database.port = String(pgPort);
    const tier = await startProcess(kind, {
      databaseUrl: database.toString(),
      redisUrl: `redis://127.0.0.1:${redisPort}/0`,
      redisPrefix: `${t.config.redisPrefix}${kind}:`,
    });
    let redis: ChildProcess | undefined;
    let postgres: { close(): Promise<void> } | undefined;
    try {
      // The store watch has looked once it logged both outages.
      await until(async () => logLines(tier.output).filter((l) => l.store).length >= 2, 10_000);
      // npm start's primary merges its workers' answers; a worker still loading may not answer.
      await until(async () => {
        const { body } = await readyz(tier.ops);
        return typeof body.postgres === 'string' && typeof body.redis === 'string';
      }, 10_000);
      const down = await readyz(tier.ops);
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({
        ready: false,
        postgres: expect.stringContaining('ECONNREFUSED'),
        redis: expect.stringContaining('ECONNREFUSED'),
      });
      if (kind === 'api' || kind === 'all') {
        const res = await fetch(`${tier.http}/readyz`);
        expect(res.status).toBe(503);
        const answer = await request(tier.http)
          .get('/api/v1/server_settings')
          .set('Host', 'chat.test');
        expect(answer.status).toBe(503);
        expect(answer.body).toMatchObject({ code: 'SERVER_NOT_READY' });
      }
      // A few seconds of outage: the warnings stay one per store.
      await new Promise((resolve) => setTimeout(resolve, 3000));

      redis = await spawnRedisServer(redisPort);
      postgres = await relayPostgres(pgPort);
      await until(async () => (await readyz(tier.ops)).status === 200, 30_000);
      // npm start's primary adds each worker's own answer.
      expect((await readyz(tier.ops)).body).toMatchObject({
        ready: true,
        postgres: 'ok',
        redis: 'ok',
      });
      // The store watch notes the return at its next look (every second during an outage).
      const back = ['PostgreSQL reachable again', 'Redis reachable again'];
      await until(async () => {
        const messages = logLines(tier.output).map((l) => l.message);
        return back.every((m) => messages.includes(m));
      }, 10_000);
    } finally {
      const { code, ms } = await tier.terminate();
      await postgres?.close();
      if (redis) await stopRedis(redis);
      expect(code).toBe(0);
      expect(ms).toBeLessThan(10_000);
    }
    const lines = logLines(tier.output);
    const warnings = lines.filter((l) => l.level === 'warn' || l.level === 'error');
    expect(warnings.map((l) => l.message).sort()).toEqual([
      'PostgreSQL unreachable',
      'Redis unreachable',
    ]);
  });
});

describe('SIGTERM during a Redis outage', () => {
  it.each<Kind>(['worker', 'all'])('%s exits within 10 s', async (kind) => {
    const redisPort = await freePort();
    const redis = await spawnRedisServer(redisPort);
    const tier = await startProcess(kind, {
      databaseUrl: t.config.databaseUrl,
      redisUrl: `redis://127.0.0.1:${redisPort}/0`,
      redisPrefix: `${t.config.redisPrefix}${kind}-sigterm:`,
    });
    try {
      await until(async () => (await readyz(tier.ops)).status === 200, 30_000);
      await stopRedis(redis);
      await until(async () => (await readyz(tier.ops)).status === 503, 10_000);
      // Long enough for BullMQ's workers to be stuck on their reconnecting connections.
      await new Promise((resolve) => setTimeout(resolve, 2000));
    } finally {
      const { code, ms } = await tier.terminate();
      await stopRedis(redis);
      expect(code).toBe(0);
      expect(ms).toBeLessThan(10_000);
    }
    logLines(tier.output);
  });
});

describe('draining', () => {
  let org: TestRealm;
  let alice: TestUser;

  beforeAll(async () => {
    org = await makeRealm(t, { stringId: '' });
    alice = await makeUser(t, org.realm, { fullName: 'Alice' });
  });

  it.each<Kind>(['events', 'all'])(
    '%s answers a waiting poll with an empty events list on a closing connection',
    async (kind) => {
      const tier = await startProcess(kind, {
        databaseUrl: t.config.databaseUrl,
        redisUrl: t.config.redisUrl,
        redisPrefix: t.config.redisPrefix,
      });
      try {
        await until(async () => (await readyz(tier.ops)).status === 200, 30_000);
        const registered = await request(t.app)
          .post('/api/v1/register')
          .set('Host', 'chat.test')
          .set('Authorization', alice.auth)
          .type('form')
          .send({ event_types: '["message"]' });
        const { queue_id: queueId, last_event_id: lastEventId } = registered.body as {
          queue_id: string;
          last_event_id: number;
        };
        // A first poll that does not wait: the process has loaded what a poll needs.
        const first = await request(tier.http)
          .get('/api/v1/events')
          .query({ queue_id: queueId, last_event_id: lastEventId, dont_block: true })
          .set('Host', 'chat.test')
          .set('Authorization', alice.auth);
        expect(first.status).toBe(200);
        const poll = request(tier.http)
          .get('/api/v1/events')
          .query({ queue_id: queueId, last_event_id: lastEventId })
          .set('Host', 'chat.test')
          .set('Authorization', alice.auth)
          .then((res) => res);
        // The poll is waiting once the events tier counts it (a fixed pause lost the race on a
        // loaded box: the process closed before the poll reached it).
        await until(async () => (await pollsWaiting(tier.ops)) > 0, 30_000);
        const exit = tier.terminate();
        const res = await poll;
        expect(res.status).toBe(200);
        expect(res.headers.connection).toBe('close');
        expect(res.body).toEqual({
          result: 'success',
          msg: '',
          events: [],
          queue_id: queueId,
        });
        const { code, ms } = await exit;
        expect(code).toBe(0);
        expect(ms).toBeLessThan(10_000);
      } finally {
        await tier.terminate();
      }
    },
  );
});
