import type { ReplicaSlot } from '../core/config';

/*
 * Which events replica leads which dispatch partition, and how a load balancer can send a queue's
 * polls to that replica. A partition's deliveries wake the polls of its users' queues: a poll
 * waiting in the replica that leads the partition is woken in memory, one waiting elsewhere only
 * after a publish through Redis and a second process's turn. With `EVENTS_REPLICA=i/n` a replica
 * has a home share of the partitions (p % n == i), which it leads whenever it is alive, and a
 * queue id names its partition, so nginx can send the polls of a partition to its home replica
 * (docs/scaling.md, "Poll affinity").
 */

/**
 * A dispatch consumer's name, which is also its wake-up channel's: unique per process, and naming
 * its home share when it has one, so every replica reads the others' homes from the member list.
 */
export function consumerName(pid: number, unique: string, home: ReplicaSlot | null): string {
  return home
    ? `events-home${home.index}of${home.count}-${pid}-${unique}`
    : `events-${pid}-${unique}`;
}

function homeOf(consumer: string): ReplicaSlot | null {
  const match = /^events-home(\d+)of(\d+)-/.exec(consumer);
  return match ? { index: Number(match[1]), count: Number(match[2]) } : null;
}

/**
 * The member that should lead each of `partitions` partitions: the first live member (by name)
 * whose home share holds it, else, when no such member is alive, member p % m of the m live ones
 * in name order (as every replica does without a home), so no partition is left without a leader.
 */
export function partitionOwners(liveMembers: string[], partitions: number): (string | undefined)[] {
  const members = [...liveMembers].sort();
  const homes = members.map(homeOf);
  return Array.from({ length: partitions }, (_, p) => {
    const home = homes.findIndex((slot) => slot !== null && p % slot.count === slot.index);
    return members[home >= 0 ? home : p % members.length];
  });
}

/** A new queue's id: its partition, then a random part (Zulip's own ids are `<n>:<n>` too). */
export const queueIdIn = (partition: number, unique: string): string => `${partition}:${unique}`;
