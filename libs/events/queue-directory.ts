import type { QueueStore } from './queue-store';
import type { QueueSettings } from '../protocol/queue';
import { QueueSetCache } from './queue-set-cache';

/**
 * The settings of the queues this process dispatches to, kept in memory: they never change after
 * registration, so each is read from Redis once, not once per event. A queue that is gone (its
 * append answers -1) is dropped, and so is one not used for the idle limit.
 */
export class QueueDirectory {
  private readonly known = new Map<string, { info: QueueSettings; usedAt: number }>();
  /** The queue-id sets of the partitions this process dispatched, read through their version. */
  readonly sets = new QueueSetCache();

  constructor(readonly store: QueueStore) {}

  /**
   * The settings of the given queues (of one partition's users) that still exist, reading only
   * those not yet known.
   */
  async resolve(
    partition: number,
    ids: Iterable<string>,
  ): Promise<{ live: QueueSettings[]; gone: string[] }> {
    const now = Date.now();
    const live: QueueSettings[] = [];
    const unknown: string[] = [];
    for (const id of ids) {
      const entry = this.known.get(id);
      if (entry) {
        entry.usedAt = now;
        live.push(entry.info);
      } else {
        unknown.push(id);
      }
    }
    const gone: string[] = [];
    const fetched = await this.store.settingsOf(partition, unknown);
    unknown.forEach((id, i) => {
      const info = fetched[i];
      if (!info) return void gone.push(id);
      this.known.set(id, { info, usedAt: now });
      live.push(info);
    });
    return { live, gone };
  }

  forget(id: string): void {
    this.known.delete(id);
  }

  /** Drops settings not used since `cutoff` (ms). */
  prune(cutoff: number): void {
    for (const [id, entry] of this.known) if (entry.usedAt < cutoff) this.known.delete(id);
  }
}
