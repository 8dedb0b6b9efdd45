/**
 * Counts (not a test) the Redis commands and PostgreSQL statements one message costs on the send
 * and delivery path: `npx tsx bench/count-per-message.ts`, against a Redis and a PostgreSQL of
 * your own, since the counters are server-wide:
 *
 *   redis-server --port 22379 --save '' --daemonize yes
 *   initdb -D DIR -A trust -U postgres && pg_ctl -D DIR -o "-p 22432 \
 *     -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all" start
 *   BENCH_REDIS_URL=redis://127.0.0.1:22379 TEST_PG_URL=postgresql://postgres@127.0.0.1:22432 \
 *     npx tsx bench/count-per-message.ts
 *
 * One api and one events process (compiled build) serve COUNT_CLIENTS clients in channels of
 * COUNT_CHANNEL_SIZE, each registered and polling over HTTP as in bench/realtime-load.ts. Redis
 * MONITOR records every command with the connection that sent it (mapped to its process with
 * `ss`); pg_stat_statements counts statements. An idle window of COUNT_SECONDS comes first (the
 * background work: membership ticks, blocked reads, the sweeper), then the same window with
 * COUNT_MESSAGES messages; per message is (loaded - idle) / messages.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { Redis } from 'ioredis';
import { makeChannel } from '../test/channel-factories';
import { makeRealm, makeUser } from '../test/factories';
import { startTier, type Tier } from '../test/multiprocess/processes';
import { agent, newStats, registerClients, sendMessage, startPolling } from './realtime-clients';
import { bulkMembers, sleep, withScratchWorld } from './scratch-world';

const CLIENTS = Number(process.env.COUNT_CLIENTS ?? 500);
const CHANNEL_SIZE = Number(process.env.COUNT_CHANNEL_SIZE ?? 50);
const MESSAGES = Number(process.env.COUNT_MESSAGES ?? 100);
const SECONDS = Number(process.env.COUNT_SECONDS ?? 10);
/**
 * COUNT_MONITOR=0: no MONITOR windows (no Redis command counts), for when only the PostgreSQL
 * counts and the CPU windows are wanted: ioredis's MONITOR parser can fail on a busy Redis.
 */
const MONITORING = process.env.COUNT_MONITOR !== '0';
process.env.BENCH_DIST_DIR ??= path.resolve(__dirname, '../dist');

type Counts = Map<string, number>;
const bump = (m: Counts, key: string, by = 1) => m.set(key, (m.get(key) ?? 0) + by);

/** Which process holds each local port connected to Redis's port. */
function portOwners(redisPort: number): Map<number, number> {
  const out = execFileSync('ss', ['-tnpH', 'state', 'established', `( dport = :${redisPort} )`], {
    encoding: 'utf8',
  });
  const owners = new Map<number, number>();
  for (const line of out.split('\n')) {
    const local = /127\.0\.0\.1:(\d+)\s+127\.0\.0\.1:\d+/.exec(line);
    const pid = /pid=(\d+)/.exec(line);
    if (local && pid) owners.set(Number(local[1]), Number(pid[1]));
  }
  return owners;
}

/** Records every command for `ms`, by "process kind command". */
async function monitor(
  url: string,
  ms: number,
  kinds: Map<number, string>,
  during: () => Promise<void>,
  watching: boolean,
): Promise<Counts> {
  const redisPort = Number(new URL(url).port || 6379);
  const raw: string[] = [];
  const client = new Redis(url);
  const watcher = watching && MONITORING ? await client.monitor() : null;
  watcher?.on('monitor', (_time: string, args: string[], source: string) => {
    raw.push(`${source} ${String(args[0]).toLowerCase()}`);
  });
  const started = Date.now();
  await during();
  await sleep(Math.max(0, ms - (Date.now() - started)));
  watcher?.disconnect();
  client.disconnect();
  const owners = portOwners(redisPort);
  const counts: Counts = new Map();
  for (const line of raw) {
    const [source, command] = line.split(' ');
    // MONITOR names a script's own commands `lua`: work inside Redis, not round trips.
    if (source === 'lua') {
      bump(counts, `inside-scripts ${command}`);
      continue;
    }
    const pid = owners.get(Number(source.split(':').pop()));
    bump(counts, `${(pid !== undefined && kinds.get(pid)) || 'other'} ${command}`);
  }
  return counts;
}

/** One command on a connection of its own, closed after its answer. */
async function redisCall(url: string, command: string, ...args: string[]): Promise<unknown> {
  const client = new Redis(url);
  try {
    return await client.call(command, ...args);
  } finally {
    client.disconnect();
  }
}

const info = async (url: string, section = 'cpu') => String(await redisCall(url, 'INFO', section));

/** Zeroes the server's per-command statistics (`INFO commandstats`). */
const resetCommandStats = (url: string) => redisCall(url, 'CONFIG', 'RESETSTAT');

/** Calls and microseconds per command since the last reset, from `INFO commandstats`. */
const commandStats = (text: string): Map<string, { calls: number; usec: number }> =>
  new Map(
    [...text.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)].map(([, name, calls, usec]) => [
      name,
      { calls: Number(calls), usec: Number(usec) },
    ]),
  );

/** CPU the Redis server has used so far (its main thread and the others), in ms. */
const usedCpuMs = (cpu: string) =>
  (Number(/used_cpu_user:([\d.]+)/.exec(cpu)?.[1]) +
    Number(/used_cpu_sys:([\d.]+)/.exec(cpu)?.[1])) *
  1000;

/** Time PostgreSQL spent executing this database's statements (top level only), in ms. */
async function execMs(pg: PgClient): Promise<number> {
  const { rows } = await pg.query<{ ms: number }>(
    `SELECT coalesce(sum(total_exec_time), 0)::float AS ms FROM pg_stat_statements s
     JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = current_database() AND toplevel`,
  );
  return rows[0].ms;
}

async function statements(pg: PgClient): Promise<Counts> {
  // Nested statements are those run by triggers and functions (foreign-key checks among them).
  const { rows } = await pg.query<{ query: string; calls: string; toplevel: boolean }>(
    `SELECT query, calls, toplevel FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
     WHERE d.datname = current_database()`,
  );
  const counts: Counts = new Map();
  for (const r of rows) {
    const text = r.query.replace(/\s+/g, ' ').slice(0, 110);
    bump(counts, `${r.toplevel ? '' : '(nested) '}${text}`, Number(r.calls));
  }
  return counts;
}

async function main() {
  const redisUrl = process.env.BENCH_REDIS_URL;
  if (!redisUrl || !process.env.TEST_PG_URL) {
    throw new Error('set BENCH_REDIS_URL and TEST_PG_URL to servers of your own (see the top)');
  }
  const lines: string[] = [];
  await withScratchWorld({}, async (ctx, config) => {
    const org = await makeRealm(ctx);
    const owner = await makeUser(ctx, org.realm, { fullName: 'Owner' });
    const members = await bulkMembers(ctx, org.realm.id, CLIENTS, 'count');
    const channels: number[] = [];
    for (let i = 0; i < CLIENTS; i += CHANNEL_SIZE) {
      const channel = await makeChannel(ctx, org.realm, {
        name: `count-${i / CHANNEL_SIZE}`,
        subscribers: [owner.user],
      });
      await ctx.db.subscription.createMany({
        data: members.slice(i, i + CHANNEL_SIZE).map((m) => ({
          userId: m.id,
          recipientId: channel.recipientId!,
          color: '#c2c2c2',
        })),
      });
      channels.push(channel.id);
    }
    const env = { HEARTBEAT_SECONDS: '120', EVENTS_AUTH_CACHE_SECONDS: '10' };
    const api = await startTier('api', config, env);
    const events = await startTier('events', config, env);
    const kinds = new Map<number, string>([
      [api.child.pid!, 'api'],
      [events.child.pid!, 'events'],
    ]);
    const pg = new PgClient({ connectionString: config.databaseUrl });
    await pg.connect();
    let stopPolling = () => {};
    try {
      await pg.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      const stats = newStats();
      const sentAt = new Map<number, number>();
      const { clients } = await registerClients({
        apiUrl: api.url,
        host: org.host,
        members,
        concurrency: 20,
        eventsUrlOf: () => events.url,
        stats,
      });
      stopPolling = startPolling(clients, org.host, sentAt, stats);
      // Warm: one message through, and the set-up's backlog drained.
      await sendMessage({
        apiUrl: api.url,
        host: org.host,
        auth: owner.auth,
        channelId: channels[0],
        k: 0,
        sentAt,
        stats,
      });
      await sleep(3000);

      // MONITOR costs Redis CPU of its own: CPU is measured in windows without it.
      const window = async (send: boolean, watching = true) => {
        await pg.query('SELECT pg_stat_statements_reset()');
        await resetCommandStats(redisUrl);
        const cpuBefore = usedCpuMs(await info(redisUrl));
        const redis = await monitor(
          redisUrl,
          SECONDS * 1000,
          kinds,
          async () => {
            if (!send) return;
            for (let k = 1; k <= MESSAGES; k++) {
              await sendMessage({
                apiUrl: api.url,
                host: org.host,
                auth: owner.auth,
                channelId: channels[k % channels.length],
                k,
                sentAt,
                stats,
              });
              await sleep((SECONDS * 800) / MESSAGES);
            }
          },
          watching,
        );
        return {
          redis,
          sql: await statements(pg),
          redisCpuMs: usedCpuMs(await info(redisUrl)) - cpuBefore,
          commands: commandStats(await info(redisUrl, 'commandstats')),
          pgExecMs: await execMs(pg),
        };
      };
      const idle = await window(false);
      const loaded = await window(true);
      const idleCpu = await window(false, false);
      const loadedCpu = await window(true, false);
      const delivered = stats.deliveryMs.length;
      lines.push(
        `${MESSAGES} messages into channels of ${CHANNEL_SIZE} (${CLIENTS} polling clients), ` +
          `${delivered} deliveries seen (two loaded windows), ${stats.serverErrors} 5xx; per message = (loaded - idle) / ${MESSAGES}`,
        '',
        '| Redis, by process and command | per message |',
        '| --- | -: |',
      );
      const perMessage = (a: Counts, b: Counts) => {
        const keys = new Set([...a.keys(), ...b.keys()]);
        return [...keys]
          .map((k) => [k, ((a.get(k) ?? 0) - (b.get(k) ?? 0)) / MESSAGES] as const)
          .filter(([, v]) => Math.abs(v) >= 0.01)
          .sort((x, y) => y[1] - x[1]);
      };
      const redisRows = perMessage(loaded.redis, idle.redis);
      for (const [k, v] of redisRows) lines.push(`| ${k} | ${v.toFixed(2)} |`);
      const byKind = new Map<string, number>();
      for (const [k, v] of redisRows) bump(byKind, k.split(' ')[0], v);
      for (const [kind, v] of byKind) lines.push(`| **${kind}, all** | **${v.toFixed(2)}** |`);
      const each = (loadedMs: number, idleMs: number) =>
        ((loadedMs - idleMs) / MESSAGES).toFixed(3);
      lines.push(
        '',
        `Redis CPU per message: ${each(loadedCpu.redisCpuMs, idleCpu.redisCpuMs)} ms (INFO cpu); ` +
          `PostgreSQL execution time per message: ${each(loadedCpu.pgExecMs, idleCpu.pgExecMs)} ms ` +
          '(pg_stat_statements, top-level statements)',
      );
      // Without MONITOR: the time Redis spent executing each command. A script's time includes
      // the commands it runs, which appear again under their own names.
      lines.push(
        '',
        '| Redis command (`INFO commandstats`, no MONITOR) | calls per message | us per message |',
        '| --- | -: | -: |',
      );
      const names = new Set([...loadedCpu.commands.keys(), ...idleCpu.commands.keys()]);
      const commandRows = [...names]
        .map((name) => {
          const [a, b] = [loadedCpu.commands.get(name), idleCpu.commands.get(name)];
          const calls = ((a?.calls ?? 0) - (b?.calls ?? 0)) / MESSAGES;
          const usec = ((a?.usec ?? 0) - (b?.usec ?? 0)) / MESSAGES;
          return { name, calls, usec };
        })
        .filter(({ calls }) => calls >= 0.01)
        .sort((x, y) => y.usec - x.usec);
      for (const { name, calls, usec } of commandRows) {
        lines.push(`| ${name} | ${calls.toFixed(2)} | ${usec.toFixed(1)} |`);
      }
      lines.push('', '| PostgreSQL statement | per message |', '| --- | -: |');
      const sqlRows = perMessage(loaded.sql, idle.sql);
      for (const [k, v] of sqlRows)
        lines.push(`| \`${k.replace(/\|/g, '\\|')}\` | ${v.toFixed(2)} |`);
      const nested = sqlRows.filter(([k]) => k.startsWith('(nested)'));
      const sum = (rows: (readonly [string, number])[]) => rows.reduce((a, [, v]) => a + v, 0);
      lines.push(`| **top level, all** | **${(sum(sqlRows) - sum(nested)).toFixed(2)}** |`);
      lines.push(`| **nested, all** | **${sum(nested).toFixed(2)}** |`);
    } finally {
      stopPolling();
      await pg.end();
      await Promise.all([api, events].map((t: Tier) => t.stop()));
    }
  });
  agent.destroy();
  process.stdout.write(`${lines.join('\n')}\n`);
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
