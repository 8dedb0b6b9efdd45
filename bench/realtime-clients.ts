/**
 * Clients as the real-time benchmarks run them over HTTP: Basic auth, `POST /register`, then a
 * `GET /events` loop, and messages sent through `POST /messages` whose content names them (`m<k>m`,
 * or `[m<k>]` in Markdown), so every delivery is matched to its send. Used by
 * bench/realtime-load.ts (one api and N events processes) and bench/scale-out.ts (the nginx
 * cluster).
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';

export interface Client {
  auth: string;
  userId: number;
  eventsUrl: string;
  queueId: string;
  lastEventId: number;
  seen: Set<number>;
}

export interface Stats {
  sendMs: number[];
  deliveryMs: number[];
  duplicates: number;
  outOfOrder: number;
  serverErrors: number;
  badQueue: number;
}

export const newStats = (): Stats => ({
  sendMs: [],
  deliveryMs: [],
  duplicates: 0,
  outOfOrder: 0,
  serverErrors: 0,
  badQueue: 0,
});

export const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

/**
 * BENCH_CLIENT_CONNECTIONS=own: each client polls on a connection of its own, as a browser tab
 * or an app does, so its polls stay with the process its connection went to. Otherwise (the
 * default, and every figure before Nov 27) the clients share one pool of connections, and a
 * client's next poll takes whichever connection is free, so reaches each of `npm start`'s
 * processes in turn.
 */
const ownConnections = process.env.BENCH_CLIENT_CONNECTIONS === 'own';

/** One HTTP call of a client: status and parsed JSON body. */
export type Request = (
  url: string,
  method: string,
  auth: string,
  host: string,
  body?: string,
) => Promise<{ status: number; json: Record<string, unknown> }>;

export function request(
  url: string,
  method: string,
  auth: string,
  host: string,
  body?: string,
  via: http.Agent = agent,
): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent: via,
        headers: {
          Host: host,
          Authorization: auth,
          ...(body !== undefined
            ? {
                'Content-Type': 'application/x-www-form-urlencoded',
                'Content-Length': Buffer.byteLength(body),
              }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let json: Record<string, unknown>;
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            json = { raw: text };
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/**
 * The same call through a generic `fetch` client (Node's undici, one keep-alive pool for every
 * client), as most client libraries make it: it sends the headers undici sends and the URL's own
 * Host (`127.0.0.1:<port>`), not the organization's, so the server resolves the organization as
 * it does for a server reached by address. `host` is ignored: fetch does not let a caller set it.
 */
export const fetchRequest: Request = async (url, method, auth, _host, body) => {
  const res = await fetch(url, {
    method,
    headers: {
      Authorization: auth,
      ...(body !== undefined ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
    },
    body,
  });
  const text = await res.text();
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { raw: text };
  }
  return { status: res.status, json };
};

/**
 * The message number a delivered message's content names: `[m<k>]` (Markdown content, rendered or
 * not) or `m<k>m` (plain content).
 */
export function messageNumberOf(content: string): number {
  const match = /\[m(\d+)\]/.exec(content) ?? /m(\d+)m/.exec(content);
  return Number(match?.[1]);
}

/**
 * What `POST /register` asks for. `messages`: message events only, and only the state they need
 * (`fetch_event_types`), as the benchmarks' clients did before issue 48. `full`: every event type
 * and the whole initial state, as the mobile app and zulip-terminal register.
 */
export type RegisterShape = 'messages' | 'full';

export const registerBody = (shape: RegisterShape): string =>
  shape === 'full'
    ? form({ apply_markdown: 'true', client_gravatar: 'true', slim_presence: 'true' })
    : form({ event_types: '["message"]', fetch_event_types: '["message"]' });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/**
 * Registers a queue for every member through `apiUrl`, `concurrency` at a time; member i polls
 * `eventsUrlOf(i)`. Returns the clients, each registration's latency (its retries included) and
 * how many answers were refusals (503), each sent again after its `Retry-After`.
 */
export async function registerClients(options: {
  apiUrl: string;
  host: string;
  members: { id: number; auth: string }[];
  concurrency: number;
  eventsUrlOf: (index: number) => string;
  stats: Stats;
  /** Default: `messages`, and node:http's `request`. */
  shape?: RegisterShape;
  call?: Request;
}): Promise<{ clients: Client[]; registerMs: number[]; refused: number }> {
  const { apiUrl, host, members, concurrency, eventsUrlOf, stats } = options;
  const call = options.call ?? request;
  const body = registerBody(options.shape ?? 'messages');
  const registerMs: number[] = [];
  const clients: Client[] = [];
  let refused = 0;
  for (let i = 0; i < members.length; i += concurrency) {
    const batch = members.slice(i, i + concurrency);
    const made = await Promise.all(
      batch.map(async (m, j) => {
        const started = performance.now();
        const registerOnce = () => call(`${apiUrl}/api/v1/register`, 'POST', m.auth, host, body);
        let res = await registerOnce();
        // A refusal past capacity says when to come back, as clients do.
        for (let retry = 0; res.status === 503 && retry < 10; retry++) {
          refused++;
          await sleep(Number(res.json['retry-after'] ?? 1) * 1000);
          res = await registerOnce();
        }
        registerMs.push(performance.now() - started);
        if (res.status >= 500) stats.serverErrors++;
        if (res.status !== 200)
          throw new Error(`register: ${res.status} ${JSON.stringify(res.json)}`);
        return {
          auth: m.auth,
          userId: m.id,
          eventsUrl: eventsUrlOf(i + j),
          queueId: res.json.queue_id as string,
          lastEventId: Number(res.json.last_event_id),
          seen: new Set<number>(),
        };
      }),
    );
    clients.push(...made);
  }
  return { clients, registerMs, refused };
}

/**
 * Starts every client's `GET /events` loop. A message event counts as a delivery of message k
 * (from `sentAt`; `record`, by default into `stats`) the first time its client sees it. Returns
 * the function that stops the loops (polls in flight end with their answer). `call`: poll through
 * this client instead of node:http's (BENCH_CLIENT_CONNECTIONS=own then does not apply).
 */
export function startPolling(
  clients: Client[],
  host: string,
  sentAt: Map<number, number>,
  stats: Stats,
  record: (k: number, ms: number) => void = (_k, ms) => stats.deliveryMs.push(ms),
  call?: Request,
): () => void {
  let running = true;
  const ownConnectionOf = ownConnections
    ? new Map(clients.map((c) => [c, new http.Agent({ keepAlive: true, maxSockets: 1 })]))
    : null;
  const poll = (client: Client) => {
    if (!running) return;
    const url = `${client.eventsUrl}/api/v1/events?queue_id=${client.queueId}&last_event_id=${client.lastEventId}`;
    (call
      ? call(url, 'GET', client.auth, host)
      : request(url, 'GET', client.auth, host, undefined, ownConnectionOf?.get(client))
    )
      .then(({ status, json }) => {
        const now = performance.now();
        if (status >= 500) stats.serverErrors++;
        if (status !== 200) {
          if (json.code === 'BAD_EVENT_QUEUE_ID') stats.badQueue++;
          return setTimeout(() => poll(client), 100);
        }
        for (const e of (json.events ?? []) as {
          id: number;
          type: string;
          message?: { content: string };
        }[]) {
          if (e.id <= client.lastEventId) stats.outOfOrder++;
          client.lastEventId = Math.max(client.lastEventId, e.id);
          if (e.type !== 'message' || !e.message) continue;
          const k = messageNumberOf(e.message.content);
          // Messages the benchmark did not send (the welcome bot's, notices) name no number.
          if (Number.isNaN(k)) continue;
          if (client.seen.has(k)) {
            stats.duplicates++;
            continue;
          }
          client.seen.add(k);
          const started = sentAt.get(k);
          if (started !== undefined && k > 0) record(k, now - started);
        }
        poll(client);
      })
      .catch(() => setTimeout(() => poll(client), 100));
  };
  for (const client of clients) poll(client);
  return () => {
    running = false;
    for (const own of ownConnectionOf?.values() ?? []) own.destroy();
  };
}

/** Sends message k (content `m<k>m`) to a channel, recording its start in `sentAt`. */
export async function sendMessage(options: {
  apiUrl: string;
  host: string;
  auth: string;
  channelId: number;
  k: number;
  sentAt: Map<number, number>;
  stats: Stats;
}): Promise<void> {
  const { apiUrl, host, auth, channelId, k, sentAt, stats } = options;
  const started = performance.now();
  sentAt.set(k, started);
  const res = await request(
    `${apiUrl}/api/v1/messages`,
    'POST',
    auth,
    host,
    form({ type: 'stream', to: String(channelId), topic: 'load', content: `m${k}m` }),
  );
  if (k > 0) stats.sendMs.push(performance.now() - started);
  if (res.status >= 500) stats.serverErrors++;
  if (res.status !== 200) throw new Error(`send: ${res.status} ${JSON.stringify(res.json)}`);
}

/** Busy and total CPU time of the whole machine so far, in clock ticks. */
export function machineTicks(): { busy: number; total: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const ticks = fields.map(Number);
  const idle = ticks[3] + ticks[4];
  const total = ticks.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** A process and its children (for `npm start`'s cluster, its workers). */
export function processTreeOf(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return [pid, ...(children ? children.split(/\s+/).map(Number) : [])];
}

/** CPU time (user + system) a process and its children have used so far, in ms. */
export function cpuMsOf(pid: number): number {
  let ms = 0;
  for (const p of processTreeOf(pid)) {
    const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
    ms += ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  }
  return ms;
}

/** Resident memory of a process and its children, in MB. */
export function rssMbOf(pid: number): number {
  let kb = 0;
  for (const p of processTreeOf(pid)) {
    const status = readFileSync(`/proc/${p}/status`, 'utf8');
    kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  return Math.round(kb / 1024);
}
