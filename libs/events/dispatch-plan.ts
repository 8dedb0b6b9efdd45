import { QueueEventFormatter, reachesPublicQueues } from '../protocol/event-catalogue';
import type { DeliveryContext } from '../protocol/formatter';
import type { QueueSettings } from '../protocol/queue';
import type { DomainEventEnvelope } from './domain-stream';
import type { AppendResult, QueueAppend } from './queue-store';
import { firstIdOf, READ_QUEUE, wakeChannels, type Wakeup } from './wake-protocol';
import { WakeMessage } from './waker';

/*
 * What one batch of a partition's domain stream does, decided without I/O: `deliverBatches` reads
 * what the plan needs, asks for the plan, and carries it out. Two steps, because the second needs
 * what Redis answered to the first: the appends, then the wake-ups and clean-ups they lead to.
 */

/** A domain-stream entry as XREADGROUP returns it (fields null: trimmed since it was read). */
export type StreamEntry = [string, string[] | null];

export interface DispatchItem {
  entryId: string;
  envelope: DomainEventEnvelope;
}

/** The entries still holding an envelope, parsed. */
export function parseEntries(entries: StreamEntry[]): DispatchItem[] {
  const items: DispatchItem[] = [];
  for (const [entryId, fields] of entries) {
    if (!fields) continue;
    items.push({
      entryId,
      envelope: JSON.parse(fields[fields.indexOf('envelope') + 1]) as DomainEventEnvelope,
    });
  }
  return items;
}

/**
 * One formatter per outbox row of a delivery, shared by the partitions the row reaches (each
 * entry carries the same event): the queues of every partition then share each distinct client
 * event, which the queue store serializes once. `emailOf` serves the legacy settings events,
 * which name their queue's owner.
 */
export class DeliveryFormatters {
  private readonly byRow = new Map<string, QueueEventFormatter>();

  constructor(private readonly emailOf: DeliveryContext['emailOf']) {}

  of({ outboxId, event }: DomainEventEnvelope): QueueEventFormatter {
    let formatter = this.byRow.get(outboxId);
    if (!formatter) {
      formatter = new QueueEventFormatter(event, this.emailOf);
      this.byRow.set(outboxId, formatter);
    }
    return formatter;
  }
}

/** Whose queues a batch may reach: its users, and the realms of its public channel messages. */
export function batchAudience(items: DispatchItem[]): { users: number[]; publicRealms: number[] } {
  const users = new Set<number>();
  const publicRealms = new Set<number>();
  for (const { envelope } of items) {
    for (const userId of envelope.users) users.add(userId);
    if (reachesPublicQueues(envelope.event)) publicRealms.add(envelope.realmId);
  }
  return { users: [...users], publicRealms: [...publicRealms] };
}

/**
 * The items to deliver, given what each one's dedupe key held before this batch set it (null:
 * nothing). A row another entry already delivered was published twice: skip it. Our own entry id
 * means a redelivery after a failure, which the queues' marks make safe to repeat.
 */
export const freshItems = (items: DispatchItem[], deliveredBy: (string | null)[]): DispatchItem[] =>
  items.filter(({ entryId }, i) => deliveredBy[i] === null || deliveredBy[i] === entryId);

/** The queue ids of each user, and of each realm's all-public-channels queues, in a partition. */
export interface QueueSets {
  ofUser: Map<number, string[]>;
  publicOfRealm: Map<number, string[]>;
}

/** Every queue id the sets name, once. */
export function queueIdsOf(sets: QueueSets): Set<string> {
  const ids = new Set<string>();
  for (const members of [...sets.ofUser.values(), ...sets.publicOfRealm.values()]) {
    for (const id of members) ids.add(id);
  }
  return ids;
}

/**
 * The appends, in stream order: each item's event formatted for each live queue it reaches, in
 * the item's realm; a public channel message also reaches the realm's all-public-channels queues
 * of users who did not receive it, as a non-recipient.
 */
export function planAppends(
  items: DispatchItem[],
  sets: QueueSets,
  live: Map<string, QueueSettings>,
  formatters: DeliveryFormatters,
): QueueAppend[] {
  const appends: QueueAppend[] = [];
  for (const { entryId, envelope } of items) {
    const { event, realmId } = envelope;
    const targets: [QueueSettings, boolean][] = [];
    for (const userId of envelope.users) {
      for (const id of sets.ofUser.get(userId) ?? []) {
        const queue = live.get(id);
        if (queue) targets.push([queue, true]);
      }
    }
    if (reachesPublicQueues(event)) {
      const recipients = new Set(envelope.users);
      for (const id of sets.publicOfRealm.get(realmId) ?? []) {
        const queue = live.get(id);
        if (queue && !recipients.has(queue.userId)) targets.push([queue, false]);
      }
    }
    const formatter = formatters.of(envelope);
    for (const [queue, isRecipient] of targets) {
      if (queue.realmId !== realmId) continue;
      const events = formatter.forQueue(queue, isRecipient);
      if (events.length)
        appends.push({ queueId: queue.id, events, mark: entryId, xid: envelope.xid });
    }
  }
  return appends;
}

/** A queue found gone, and the sets that still name it. */
export interface QueueCleanup {
  queueId: string;
  userIds: number[];
  realmIds: number[];
}

export interface FinishPlan {
  /** Wake-ups of this process's own polls, in append order. */
  localWakeups: [string, Wakeup][];
  /** One message per other process with waiting polls, by its wake-up channel. */
  wakeMessages: Map<string, WakeMessage>;
  cleanups: QueueCleanup[];
}

/** Where this process's own polls are: its wake-up channel and the queues they follow. */
export interface LocalPolls {
  channel: string;
  follows(queueId: string): boolean;
}

/**
 * What the appends' results lead to. Each append that found a poll waiting (or followed one that
 * did: `wakeChannels`) wakes it, with the events it wrote: directly when the poll waits in this
 * process (`local`), else in that process's one message. A queue this process follows
 * (`FollowedQueues`) learns of every append, waiter or not, and of its loss; so does the
 * follower another process's look recorded, through its message. Queues found gone (by the
 * directory, `gone`, or by their append, last id -1) are cleaned out of the sets that name them;
 * an append already made (-2: a redelivery) wakes no one again, but its queue's follower reads
 * the queue, since the first delivery may have appended without telling it.
 */
export function planFinish(
  appends: QueueAppend[],
  results: AppendResult[],
  sets: QueueSets,
  gone: string[],
  local: LocalPolls | undefined,
): FinishPlan {
  const plan: FinishPlan = { localWakeups: [], wakeMessages: new Map(), cleanups: [] };
  const messageTo = (channel: string): WakeMessage => {
    let message = plan.wakeMessages.get(channel);
    if (!message) {
      message = new WakeMessage();
      plan.wakeMessages.set(channel, message);
    }
    return message;
  };
  const goneIds = new Set(gone);
  const channels = wakeChannels(
    results.map(({ waiter }, i) => ({ queueId: appends[i].queueId, waiter })),
  );
  results.forEach(({ lastId, written, follower }, i) => {
    const { queueId, xid = '', events } = appends[i];
    const followed = local?.follows(queueId) ?? false;
    const channel = channels[i];
    // The follower's message, unless the waiter's (the same process) or this process's carries it.
    const remoteFollower =
      follower && follower !== channel && follower !== local?.channel ? follower : null;
    if (lastId === -1) {
      goneIds.add(queueId);
      if (followed) plan.localWakeups.push([queueId, READ_QUEUE]);
    }
    if (lastId === -2 && follower && follower !== local?.channel) {
      messageTo(follower).addRead(queueId);
    }
    if (lastId < 0 || (channel === null && !followed && !remoteFollower)) return;
    const firstId = firstIdOf(lastId, written.length);
    if (followed || channel === local?.channel) {
      const carried = events.map((event, j) => ({ event, xid, json: written[j] }));
      plan.localWakeups.push([queueId, { kind: 'events', firstId, events: carried }]);
    }
    if (remoteFollower) messageTo(remoteFollower).add(queueId, firstId, xid, written);
    if (channel === null || channel === local?.channel) return;
    messageTo(channel).add(queueId, firstId, xid, written);
  });
  const naming = <K>(owners: Map<K, string[]>, queueId: string) =>
    [...owners].filter(([, ids]) => ids.includes(queueId)).map(([owner]) => owner);
  for (const queueId of goneIds) {
    plan.cleanups.push({
      queueId,
      userIds: naming(sets.ofUser, queueId),
      realmIds: naming(sets.publicOfRealm, queueId),
    });
  }
  return plan;
}
