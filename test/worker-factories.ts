import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { User } from '../generated/prisma/client';
import { createBot } from '../libs/domain/bots/create-bot';
import type { AppContext } from '../libs/core/context';
import { BotType } from '../libs/domain/users/roles';
import type { TestRealm } from './factories';
import { redisEnv } from './harness';

/** One request the loopback receiver got. */
export interface ReceivedRequest {
  contentType: string;
  body: string;
}

/** An answer, or `hangUp`: the connection is closed without one (a crashed bot server). */
export type ReceiverAnswer = { status: number; body: string; delayMs?: number } | { hangUp: true };

export type ReceiverReply = ReceiverAnswer | ((req: ReceivedRequest) => ReceiverAnswer);

/** A real HTTP endpoint on loopback standing in for a bot's server; `reply` may be changed per test. */
export interface HttpReceiver {
  url: string;
  requests: ReceivedRequest[];
  reply: ReceiverReply;
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

export async function startHttpReceiver(): Promise<HttpReceiver> {
  const receiver: HttpReceiver = {
    url: '',
    requests: [],
    reply: { status: 200, body: '{"response_not_required": true}' },
    close: async () => undefined,
  };
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const got = { contentType: String(req.headers['content-type'] ?? ''), body };
      receiver.requests.push(got);
      const r = typeof receiver.reply === 'function' ? receiver.reply(got) : receiver.reply;
      if ('hangUp' in r) {
        req.socket.destroy();
        return;
      }
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(r.status, { 'Content-Type': 'application/json' });
        res.end(r.body);
      };
      if (r.delayMs) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          answer();
        }, r.delayMs);
        timers.add(timer);
      } else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bot`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** A mail as the loopback SMTP server received it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface SmtpReceiver {
  port: number;
  mails: ReceivedMail[];
  /** Configuration (`organization({ env })`) that sends mail here, from noreply@chat.test. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** A real SMTP server on loopback that keeps what arrives. */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.server.address() as AddressInfo;
  return {
    port: address.port,
    mails,
    env: {
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(address.port),
      EMAIL_FROM: 'noreply@chat.test',
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An outgoing-webhook bot owned by `owner`, pointing at `payloadUrl`. */
export async function makeOutgoingBot(
  ctx: AppContext,
  org: TestRealm,
  owner: User,
  options: { payloadUrl: string; interface?: 1 | 2; fullName?: string },
): Promise<{ bot: User; apiKey: string; token: string }> {
  const suffix = randomBytes(3).toString('hex');
  const realm = await ctx.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
  const created = await createBot(ctx, {
    realm,
    actor: owner,
    fullName: options.fullName ?? `Hook ${suffix}`,
    shortName: `hook${suffix}`,
    botType: BotType.OUTGOING_WEBHOOK,
    payloadUrl: options.payloadUrl,
    interface: options.interface ?? 1,
  });
  return { bot: created.bot, apiKey: created.apiKey, token: created.serviceToken as string };
}

/** Polls `check` until it returns a value (not undefined/null/false) or the time runs out. */
export async function waitFor<T>(
  check: () => Promise<T | null | undefined | false>,
  timeoutMs = 10000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('waitFor: timed out');
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Starts `test/worker-child.ts` as a separate process against the test context's database and Redis. */
export async function spawnWorkerProcess(
  ctx: AppContext,
  options: { lockMs?: number; warmUpScheduledMessageId?: number } = {},
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    // One process (tsx as a loader, not its CLI, which would fork a grandchild that SIGKILL misses).
    ['--import', 'tsx', require.resolve('./worker-child.ts')],
    {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: ctx.config.databaseUrl,
        ...redisEnv(ctx.config),
        REDIS_PREFIX: ctx.config.redisPrefix,
        EXTERNAL_HOST: ctx.config.externalHost,
        OUTGOING_WEBHOOK_ALLOWED_HOSTS: ctx.config.outgoingWebhookAllowedHosts.join(','),
        LOG_LEVEL: 'error',
        LOG_FORMAT: 'json',
        TEST_WORKER_LOCK_MS: String(options.lockMs ?? 1000),
        ...(options.warmUpScheduledMessageId !== undefined
          ? { TEST_WORKER_WARM_UP_SCHEDULED_ID: String(options.warmUpScheduledMessageId) }
          : {}),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`worker child exited early (${code})`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
  });
  return child;
}

/** Stops a child started by spawnWorkerProcess (SIGKILL when `kill` is set). */
export function stopWorkerProcess(child: ChildProcess, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM') {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
