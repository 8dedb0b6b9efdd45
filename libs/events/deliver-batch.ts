import type { AppContext } from '../core/context';
import { sqlPool } from '../db/sql';
import { execByNode, type BatchCommand } from '../redis/by-node';
import { addPerKey, perKeyReplies } from '../redis/per-key';
import { QueueEventFormatter, reachesPublicQueues } from '../protocol/catalogue';
import type { QueueSettings } from '../protocol/queue';
import { DISPATCH_GROUP, type DomainEventEnvelope } from './domain-stream';
import type { EventKeys } from './keys';
import type { QueueDirectory } from './queue-directory';
import type { QueueAppend } from './queue-store';
import type { LocalDelivery } from './local-wakeups';
import { WakeMessage, wakeCommand, type Wakeup } from './waker';

/** A domain-stream entry as XREADGROUP returns it (fields null: trimmed since it was read). */
export type StreamEntry = [string, string[] | null];

/**
 * How long a delivered outbox row is remembered. A row is published twice only when the sweeper
 * finds it unmarked (3 s after commit) while its first publish is still on the way, so minutes
 * suffice, and a day of keys (one per row and partition) would cost Redis gigabytes.
 */
const DEDUPE_SECONDS = 15 * 60;

interface Item {
  entryId: string;
  envelope: DomainEventEnvelope;
}

/**
 * Delivers one batch of a partition's domain stream in four round trips, whatever its size:
 * 1. dedupe keys of the outbox rows and the queue ids of every user (and realm, for public
 *    channel messages) the batch names, the sets read by script (`addPerKey`);
 * 2. the settings of queues this process has not seen yet;
 * 3. every append, in stream order;
 * 4. acknowledgement and trimming of the entries, clean-up of queues found gone, and one wake-up
 *    message per other events process with waiting polls, carrying the events it woke them for.
 * On a cluster, rounds 2 to 4 take one round trip per node, sent together. This process's own
 * polls are woken after round 3, once no other delivery under way has yet to append
 * (`LocalWakeups`; `local` is this delivery's part in that, ended here once it has appended).
 */
export async function deliverBatch(
  ctx: AppContext,
  keys: EventKeys,
  directory: QueueDirectory,
  local: LocalDelivery | undefined,
  partition: number,
  entries: StreamEntry[],
): Promise<number> {
  const items: Item[] = [];
  for (const [entryId, fields] of entries) {
    if (!fields) continue;
    items.push({
      entryId,
      envelope: JSON.parse(fields[fields.indexOf('envelope') + 1]) as DomainEventEnvelope,
    });
  }

  const lookups = ctx.redis.pipeline();
  for (const { entryId, envelope } of items) {
    lookups.set(
      keys.dispatched(partition, envelope.outboxId),
      entryId,
      'EX',
      DEDUPE_SECONDS,
      'NX',
      'GET',
    );
  }
  const users = [...new Set(items.flatMap((i) => i.envelope.users))];
  const publicRealms = [
    ...new Set(
      items.filter((i) => reachesPublicQueues(i.envelope.event)).map((i) => i.envelope.realmId),
    ),
  ];
  const sets = [
    ...users.map((userId) => keys.userQueues(partition, userId)),
    ...publicRealms.map((realmId) => keys.realmPublicQueues(partition, realmId)),
  ];
  // A partition's keys share one slot, so one script call reads a thousand sets.
  addPerKey(lookups, 'SMEMBERS', sets);
  const looked = ((await lookups.exec()) ?? []).map(([err, value]) => {
    if (err) throw err;
    return value;
  });
  // A row another entry already delivered was published twice: skip it. Our own entry id means a
  // redelivery after a failure, which the queues' marks make safe to repeat.
  const fresh = items.filter(({ entryId }, i) => looked[i] === null || looked[i] === entryId);
  const members = perKeyReplies<string[]>(looked.slice(items.length));
  const queuesOfUser = new Map<number, string[]>();
  users.forEach((userId, i) => queuesOfUser.set(userId, members[i]));
  const publicQueues = new Map<number, string[]>();
  publicRealms.forEach((realmId, i) => publicQueues.set(realmId, members[users.length + i]));

  const wanted = new Set<string>();
  for (const ids of queuesOfUser.values()) for (const id of ids) wanted.add(id);
  for (const ids of publicQueues.values()) for (const id of ids) wanted.add(id);
  const { live, gone } = await directory.resolve(partition, wanted);
  const byId = new Map(live.map((q) => [q.id, q]));
  const emails = await emailsFor(ctx, fresh, live);

  const appends: QueueAppend[] = [];
  for (const { entryId, envelope } of fresh) {
    const { event } = envelope;
    const recipients = new Set(envelope.users);
    const targets: [QueueSettings, boolean][] = [];
    for (const userId of envelope.users) {
      for (const id of queuesOfUser.get(userId) ?? []) {
        const queue = byId.get(id);
        if (queue) targets.push([queue, true]);
      }
    }
    if (reachesPublicQueues(event)) {
      for (const id of publicQueues.get(envelope.realmId) ?? []) {
        const queue = byId.get(id);
        if (queue && !recipients.has(queue.userId)) targets.push([queue, false]);
      }
    }
    const formatter = new QueueEventFormatter(event, (id) => emails.get(id));
    for (const [queue, isRecipient] of targets) {
      if (queue.realmId !== envelope.realmId) continue;
      const events = formatter.forQueue(queue, isRecipient);
      if (events.length) {
        appends.push({ queueId: queue.id, events, mark: entryId, xid: envelope.xid });
      }
    }
  }
  const results = await directory.store.append(appends);

  const streamKey = keys.domainStream(partition);
  const finish: BatchCommand[] = [];
  // Every key of the partition shares the stream's slot.
  const onPartition = (add: BatchCommand['add']) => finish.push({ key: streamKey, add });
  // One wake-up message per other process with waiting polls; this process's own polls are woken
  // here and now. A queue's poll is woken by the first append that finds it waiting; the queue's
  // later appends in this batch go the same way.
  const wakes = new Map<string, WakeMessage>();
  const wokenQueues = new Map<string, WakeMessage | 'local'>();
  const localWakeups: [string, Wakeup][] = [];
  results.forEach(({ lastId, waiter, written }, i) => {
    const { queueId, xid, events } = appends[i];
    if (lastId === -1) gone.push(queueId);
    if (lastId < 0) return;
    let route = wokenQueues.get(queueId);
    if (!route && waiter) {
      if (waiter === local?.channel) route = 'local';
      else {
        route = wakes.get(waiter) ?? new WakeMessage();
        wakes.set(waiter, route);
      }
      wokenQueues.set(queueId, route);
    }
    const firstId = lastId - written.length + 1;
    if (route === 'local') {
      const carried = events.map((event) => ({ event, xid: xid ?? '' }));
      localWakeups.push([queueId, { kind: 'events', firstId, events: carried }]);
    } else route?.add(queueId, firstId, xid ?? '', written);
  });
  local?.end(localWakeups);
  for (const id of new Set(gone)) {
    directory.forget(id);
    const naming = <K>(sets: Map<K, string[]>) =>
      [...sets].filter(([, ids]) => ids.includes(id)).map(([owner]) => owner);
    const [userIds, realmIds] = [naming(queuesOfUser), naming(publicQueues)];
    for (const add of directory.store.forgetCommands(partition, id, userIds, realmIds)) {
      onPartition(add);
    }
  }
  onPartition((p) => p.xack(streamKey, DISPATCH_GROUP, ...entries.map(([id]) => id)));
  onPartition((p) => p.xtrim(streamKey, 'MINID', entries[entries.length - 1][0]));
  for (const [channel, ids] of wakes) finish.push(wakeCommand(ctx.redis, channel, ids));
  await execByNode(ctx.redis, finish);
  return appends.length;
}

/** API emails of the queues' owners, needed only for the legacy settings events. */
async function emailsFor(
  ctx: AppContext,
  items: Item[],
  queues: QueueSettings[],
): Promise<Map<number, string>> {
  if (!items.some((i) => i.envelope.event.type === 'user_settings')) return new Map();
  const { rows } = await sqlPool(ctx).query<{ id: number; email: string }>(
    'SELECT id, email FROM users WHERE id = ANY($1::int[])',
    [[...new Set(queues.map((q) => q.userId))]],
  );
  return new Map(rows.map((u) => [u.id, u.email]));
}
