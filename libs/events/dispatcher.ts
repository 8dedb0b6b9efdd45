import type { Redis } from 'ioredis';
import type { AppContext } from '../domain/context';
import { eventsForQueue, type MessageShape } from './deliver';
import { domainStreamKey, type DomainEventEnvelope } from './outbox';
import { QueueStore, type QueueAppend } from './queue-store';
import type { DispatchableEvent, QueueInfo } from './types';

export const DISPATCH_GROUP = 'dispatchers';
const LEASE_MS = 5000;
const DEDUPE_SECONDS = 24 * 3600;

const RENEW_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) and 1 or 0
`;

/**
 * Moves envelopes from the domain stream into event queues. Every `events` replica runs one; a
 * lease elects the one that reads, so each queue receives events in stream order. Reading goes
 * through a consumer group: an entry stays pending until it is delivered, and a new leader first
 * claims (XAUTOCLAIM) what a crashed one left pending. A dedupe key per outbox row keeps a row
 * that was published twice (sweeper after a slow publish) from being delivered twice.
 */
export class Dispatcher {
  private readonly store: QueueStore;
  private readonly reader: Redis;
  private readonly streamKey: string;
  private readonly leaseKey: string;
  private running = false;
  private leader = false;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly ctx: AppContext,
    readonly consumer: string,
  ) {
    this.store = new QueueStore(
      ctx.redis,
      ctx.config.redisPrefix,
      ctx.config.eventQueueIdleSeconds,
    );
    this.reader = ctx.redis.duplicate();
    this.streamKey = domainStreamKey(ctx.config.redisPrefix);
    this.leaseKey = `${ctx.config.redisPrefix}dispatcher-leader`;
  }

  async start(): Promise<void> {
    await ensureGroup(this.ctx.redis, this.streamKey);
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop?.catch(() => undefined);
    if (this.leader) {
      await this.ctx.redis.eval(
        "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
        1,
        this.leaseKey,
        this.consumer,
      );
    }
    this.reader.disconnect();
  }

  private async holdLease(): Promise<boolean> {
    const got = await this.ctx.redis.eval(RENEW_SCRIPT, 1, this.leaseKey, this.consumer, LEASE_MS);
    return Number(got) === 1;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const leader = await this.holdLease();
        if (!leader) {
          this.leader = false;
          await sleep(1000);
          continue;
        }
        if (!this.leader) {
          this.leader = true;
          this.ctx.log.info('dispatch', 'dispatcher is leader', { consumer: this.consumer });
          await this.claimPending();
        }
        const read = (await this.reader.xreadgroup(
          'GROUP',
          DISPATCH_GROUP,
          this.consumer,
          'COUNT',
          200,
          'BLOCK',
          1000,
          'STREAMS',
          this.streamKey,
          '>',
        )) as [string, [string, string[]][]][] | null;
        const entries = read?.[0]?.[1] ?? [];
        if (entries.length) await this.handle(entries);
      } catch (err) {
        this.ctx.log.error('dispatch', 'dispatch failed; retrying', {
          error: err instanceof Error ? err.message : String(err),
        });
        await sleep(500);
      }
    }
  }

  /** Takes over every entry another consumer read but did not acknowledge, oldest first. */
  private async claimPending(): Promise<void> {
    let cursor = '0-0';
    for (;;) {
      const [next, entries] = (await this.ctx.redis.xautoclaim(
        this.streamKey,
        DISPATCH_GROUP,
        this.consumer,
        0,
        cursor,
        'COUNT',
        200,
      )) as [string, [string, string[]][]];
      const live = entries.filter((e) => e && e[1]);
      if (live.length) await this.handle(live);
      if (next === '0-0') return;
      cursor = next;
    }
  }

  private async handle(entries: [string, string[]][]): Promise<void> {
    for (const [entryId, fields] of entries) {
      const raw = fields[fields.indexOf('envelope') + 1];
      const envelope = JSON.parse(raw) as DomainEventEnvelope;
      const dedupeKey = `${this.ctx.config.redisPrefix}dispatched:${envelope.outboxId}`;
      const state = await this.ctx.redis.get(dedupeKey);
      if (state !== 'done') {
        await this.ctx.redis.set(dedupeKey, 'inflight', 'EX', DEDUPE_SECONDS);
        await dispatchEnvelope(this.ctx, this.store, envelope);
        await this.ctx.redis.set(dedupeKey, 'done', 'EX', DEDUPE_SECONDS);
      }
      await this.ctx.redis.xack(this.streamKey, DISPATCH_GROUP, entryId);
    }
  }
}

export async function ensureGroup(redis: Redis, streamKey: string): Promise<void> {
  try {
    await redis.xgroup('CREATE', streamKey, DISPATCH_GROUP, '0', 'MKSTREAM');
  } catch (err) {
    if (!(err instanceof Error) || !err.message.includes('BUSYGROUP')) throw err;
  }
}

/** Delivers one envelope to the queues of its users (and all_public_streams queues when relevant). */
export async function dispatchEnvelope(
  ctx: AppContext,
  store: QueueStore,
  envelope: DomainEventEnvelope,
): Promise<number> {
  const event = envelope.event as DispatchableEvent;
  const publicRealm = (await isPublicChannelMessage(ctx, event)) ? envelope.realmId : null;
  const queues = await store.queuesOf(envelope.users, publicRealm);
  if (queues.length === 0) return 0;
  const recipients = new Set(envelope.users);
  const emails = await emailsFor(
    ctx,
    event,
    queues.map((q) => q.userId),
  );
  const appends: QueueAppend[] = [];
  const onlooker = await firstSightings(ctx, event, queues, recipients);
  for (const queue of queues) {
    if (queue.realmId !== envelope.realmId) continue;
    const isRecipient = recipients.has(queue.userId);
    if (!isRecipient && !onlooker.has(queue.id)) continue;
    for (const out of eventsForQueue(queue, event, {
      isRecipient,
      emailOf: (id) => emails.get(id),
    })) {
      appends.push({ queueId: queue.id, event: out, xid: envelope.xid });
    }
  }
  await store.append(appends);
  return appends.length;
}

/**
 * all_public_streams queues of non-recipients: a message may travel in several envelopes (one per
 * set of flags), so such a queue takes it from the first envelope only (SET NX per queue+message).
 */
async function firstSightings(
  ctx: AppContext,
  event: DispatchableEvent,
  queues: QueueInfo[],
  recipients: Set<number>,
): Promise<Set<string>> {
  const onlookers = queues.filter((q) => q.allPublicStreams && !recipients.has(q.userId));
  const messageId = (event.message as MessageShape | undefined)?.id;
  if (onlookers.length === 0 || messageId === undefined) return new Set();
  const pipeline = ctx.redis.pipeline();
  for (const q of onlookers) {
    pipeline.set(
      `${ctx.config.redisPrefix}public-seen:${q.id}:${messageId}`,
      '1',
      'EX',
      3600,
      'NX',
    );
  }
  const results = (await pipeline.exec()) ?? [];
  return new Set(onlookers.filter((_, i) => results[i]?.[1] === 'OK').map((q) => q.id));
}

async function isPublicChannelMessage(ctx: AppContext, event: DispatchableEvent): Promise<boolean> {
  if (event.type !== 'message') return false;
  const message = event.message as MessageShape | undefined;
  if (message?.type !== 'stream' || typeof message.stream_id !== 'number') return false;
  const stream = await ctx.db.stream.findUnique({
    where: { id: message.stream_id },
    select: { inviteOnly: true },
  });
  return stream !== null && !stream.inviteOnly;
}

/** API emails, needed only for the legacy settings events. */
async function emailsFor(
  ctx: AppContext,
  event: DispatchableEvent,
  userIds: number[],
): Promise<Map<number, string>> {
  if (event.type !== 'user_settings') return new Map();
  const users = await ctx.db.user.findMany({
    where: { id: { in: [...new Set(userIds)] } },
    select: { id: true, email: true },
  });
  return new Map(users.map((u) => [u.id, u.email]));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
