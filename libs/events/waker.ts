import type { Redis } from 'ioredis';

type Wake = () => void;

/**
 * Wakes long-polls when their queue gets events. Each events process has one wake-up channel: a
 * poll about to wait records the channel on its queue (in the same script that found the queue
 * empty), and the dispatcher publishes the ids of the queues it appended to on the channel of the
 * process where they wait, one message per process and batch. So a poll costs no SUBSCRIBE, and
 * thousands of waiting polls are callbacks in memory behind one subscriber connection.
 */
export class Waker {
  private readonly waiting = new Map<string, Set<Wake>>();

  constructor(
    private readonly subscriber: Redis,
    /** This process's wake-up channel. */
    readonly channel: string,
  ) {
    subscriber.on('message', (from: string, message: string) => {
      if (from !== channel) return;
      for (const queueId of message.split(',')) {
        const waiters = this.waiting.get(queueId);
        if (waiters) for (const wake of [...waiters]) wake();
      }
    });
  }

  /** Subscribes to the process's channel; polls may wait once this resolves. */
  async start(): Promise<void> {
    await this.subscriber.subscribe(this.channel);
  }

  /** Registers interest in a queue; returns the function that cancels it. */
  listen(queueId: string, onWake: Wake): () => void {
    let waiters = this.waiting.get(queueId);
    if (!waiters) {
      waiters = new Set();
      this.waiting.set(queueId, waiters);
    }
    waiters.add(onWake);
    return () => {
      const set = this.waiting.get(queueId);
      if (!set) return;
      set.delete(onWake);
      if (set.size === 0) this.waiting.delete(queueId);
    };
  }

  get pollCount(): number {
    let n = 0;
    for (const set of this.waiting.values()) n += set.size;
    return n;
  }

  close(): void {
    this.waiting.clear();
    this.subscriber.disconnect();
  }
}
