/**
 * The hash tag of a queue's keys: that of its partition, which its id names first (`queueIdIn`).
 * An id without one (never handed out) names keys that do not exist.
 */
const queueTag = (id: string): string => `p${id.slice(0, Math.max(0, id.indexOf(':')))}`;

/**
 * Every Redis key of the event system. Keys that one script or transaction touches together share
 * a hash tag, so the same commands run on one Redis or on Redis Cluster: a dispatch partition's
 * domain stream, lease, dedupe keys, the queue-id sets of the users it owns and the hashes and
 * event lists of their queues share `{p<n>}`. On a cluster a partition's work is then one node's,
 * and one script call appends a message's events to every queue of a partition, or serves the
 * polls of a partition's queues that arrive together (with a slot per queue, each was a call of
 * its own).
 */
export const eventKeys = (prefix: string) => ({
  /** Hash: owner, filters, capabilities, `last_id`, `first_id`, `mark`, `waiter`, `snapshot`. */
  queue: (id: string) => `${prefix}queue:{${queueTag(id)}}:${id}`,
  /** List of the events not yet acknowledged, oldest first (see queue-store.ts). */
  events: (id: string) => `${prefix}queue:{${queueTag(id)}}:${id}:event-list`,
  /** Set of the queue ids of one user. */
  userQueues: (partition: number, userId: number) =>
    `${prefix}user-queues:{p${partition}}:${userId}`,
  /** Set of the all_public_streams queue ids of a realm whose owners fall in one partition. */
  realmPublicQueues: (partition: number, realmId: number) =>
    `${prefix}realm-public-queues:{p${partition}}:${realmId}`,
  /**
   * A new random value after every change to the partition's queue-id sets: dispatch keeps the
   * sets it read while the value stays the same (`QueueSetCache`).
   */
  queueSetsVersion: (partition: number) => `${prefix}queue-sets-version:{p${partition}}`,
  /**
   * Hash: the settings of each queue of the partition's users, by queue id (see
   * `QueueStore.settingsOf`), so dispatch learns a thousand queues with one command.
   */
  queueSettings: (partition: number) => `${prefix}queue-settings:{p${partition}}`,
  /** Sorted set: last access per queue of the partition's users, for garbage collection. */
  access: (partition: number) => `${prefix}queue-access:{p${partition}}`,
  /** Stream of domain-event envelopes for the users of one partition. */
  domainStream: (partition: number) => `${prefix}domain-events:{p${partition}}`,
  /** Which consumer leads a partition's dispatch. */
  lease: (partition: number) => `${prefix}dispatch-lease:{p${partition}}`,
  /** Which stream entry delivered an outbox row in a partition (a re-published row is skipped). */
  dispatched: (partition: number, outboxId: string) =>
    `${prefix}dispatched:{p${partition}}:${outboxId}`,
  /** Sorted set of live dispatch consumers, scored by their last heartbeat. */
  members: () => `${prefix}dispatch-members`,
  /** Pub/sub channel of one events process: the ids of its queues that have new events. */
  wake: (processId: string) => `${prefix}wake:${processId}`,
});

export type EventKeys = ReturnType<typeof eventKeys>;

/** The dispatch partition of a user: all of a user's queues are fed by one partition, in order. */
export const partitionOf = (userId: number, partitions: number): number => userId % partitions;
