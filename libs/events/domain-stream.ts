import { randomUUID } from 'node:crypto';
import type { AppContext, RedisClient } from '../core/context';
import { execByNode, type BatchCommand } from '../redis/by-node';
import { eventKeys, partitionOf } from './keys';
import { reachesPublicQueues, type DomainEvent } from '../protocol/event-catalogue';
import type { CommittedEvent } from './outbox';

export const DISPATCH_GROUP = 'dispatchers';

/**
 * An event nothing stores (typing): no outbox row, so no transaction id, and an id of its own for
 * the dispatcher's dedupe. Without an xid, a queue registered from a snapshot always receives it.
 */
export interface EphemeralEvent {
  id: string;
  realmId: number;
  users: number[];
  event: DomainEvent;
  xid?: undefined;
}

/**
 * Sends an ephemeral event straight to the domain streams, as Zulip sends typing notifications
 * straight to Tornado: nothing to keep, so nothing to write to PostgreSQL. A Redis failure fails
 * the request; there is no later delivery of a stale "typing" anyway.
 */
export async function publishEphemeral(
  ctx: AppContext,
  realmId: number,
  event: DomainEvent,
  users: number[],
): Promise<void> {
  if (users.length === 0) return;
  await appendToDomainStream(ctx, [{ id: `e-${randomUUID()}`, realmId, users, event }]);
}

/** What travels on a partition's domain stream: one event and those of its users in the partition. */
export interface DomainEventEnvelope {
  outboxId: string;
  realmId: number;
  users: number[];
  event: DomainEvent;
  /** The writing transaction's id (decimal), for queues registered from a snapshot. */
  xid?: string;
}

/**
 * Appends committed outbox rows to the domain streams in one round trip (one per node on a
 * cluster): each row goes to the
 * partition of each of its users, with those users. A message to a public channel also goes to
 * every other partition, whose all_public_streams queues receive it too.
 */
export async function appendToDomainStream(
  ctx: AppContext,
  rows: (CommittedEvent | EphemeralEvent)[],
): Promise<void> {
  const keys = eventKeys(ctx.config.redisPrefix);
  const partitions = ctx.config.dispatchPartitions;
  const commands: BatchCommand[] = [];
  for (const row of rows) {
    // A row reaching every partition has one event text: stringified once, not once each.
    const eventJson = JSON.stringify(row.event);
    const byPartition = new Map<number, number[]>();
    if (reachesPublicQueues(row.event)) {
      for (let p = 0; p < partitions; p++) byPartition.set(p, []);
    }
    for (const userId of row.users) {
      const p = partitionOf(userId, partitions);
      const list = byPartition.get(p);
      if (list) list.push(userId);
      else byPartition.set(p, [userId]);
    }
    for (const [partition, users] of byPartition) {
      const head: Omit<DomainEventEnvelope, 'event'> = {
        outboxId: row.id.toString(),
        realmId: row.realmId,
        users,
        xid: row.xid?.toString(),
      };
      const envelope = `${JSON.stringify(head).slice(0, -1)},"event":${eventJson}}`;
      const key = keys.domainStream(partition);
      commands.push({ key, command: 'xadd', args: [key, '*', 'envelope', envelope] });
    }
  }
  // Replicated: the caller marks the outbox rows sent next, and only the sweeper would retry.
  await execByNode(ctx.redis, commands, { replicated: true });
}

export async function ensureGroup(redis: RedisClient, streamKey: string): Promise<void> {
  try {
    await redis.xgroup('CREATE', streamKey, DISPATCH_GROUP, '0', 'MKSTREAM');
  } catch (err) {
    if (!(err instanceof Error) || !err.message.includes('BUSYGROUP')) throw err;
  }
}
