import { randomUUID } from 'node:crypto';

/** Set keys kept at most per partition; past it the partition's are read again. */
const MAX_KEYS = 50_000;

/** A value for a partition's sets version (`EventKeys.queueSetsVersion`) no other write made. */
export const newSetsVersion = (): string => randomUUID();

interface PartitionSets {
  /** The partition's sets version read before any of `members` was read. */
  version: string | null;
  members: Map<string, string[]>;
}

/**
 * The queue-id sets dispatch read, per partition, while the partition's sets version stays what
 * it was before they were read. Every change to a partition's sets writes a new version after it
 * (in the same transaction, or later in the same pipeline), so a version read before a set's
 * members tells whether they may have changed since; the sets change at registration and
 * clean-up only, and reading them was a script call per partition and message, with a set
 * read per recipient. A version that differs drops all of the partition's sets.
 */
export class QueueSetCache {
  private readonly partitions = new Map<number, PartitionSets>();

  /** The keys whose members are not kept. */
  missing(partition: number, keys: string[]): string[] {
    const members = this.partitions.get(partition)?.members;
    if (!members) return keys;
    const out: string[] = [];
    for (const key of keys) if (!members.has(key)) out.push(key);
    return out;
  }

  /** Adds to `into` the kept members of `keys`; returns the keys not kept. */
  take(partition: number, keys: string[], into: Map<string, string[]>): string[] {
    const members = this.partitions.get(partition)?.members;
    const out: string[] = [];
    for (const key of keys) {
      const kept = members?.get(key);
      if (kept) into.set(key, kept);
      else if (!into.has(key)) out.push(key);
    }
    return out;
  }

  /** The partition's sets version is `version`: what was kept under another one goes. */
  versionIs(partition: number, version: string | null): void {
    const kept = this.partitions.get(partition);
    if (kept && kept.version === version && kept.members.size <= MAX_KEYS) return;
    this.partitions.set(partition, { version, members: new Map() });
  }

  /** Members of `key` read after the version last given to `versionIs`. */
  put(partition: number, key: string, members: string[]): void {
    this.partitions.get(partition)?.members.set(key, members);
  }
}
