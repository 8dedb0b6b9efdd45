import type { Redis } from 'ioredis';
import { queueKeys } from './queue-store';

type Wake = () => void;

/**
 * Wakes long-polls when their queue gets events. One subscriber connection per process carries
 * the wake-up channels of every queue currently polled here; waiting polls are plain callbacks
 * in memory, so thousands of idle polls cost no Redis connection each.
 */
export class Waker {
  private readonly waiting = new Map<string, Set<Wake>>();
  private readonly subscribed = new Map<string, Promise<unknown>>();
  private readonly keys: ReturnType<typeof queueKeys>;
  private readonly channelPrefix: string;

  constructor(
    private readonly subscriber: Redis,
    prefix: string,
  ) {
    this.keys = queueKeys(prefix);
    this.channelPrefix = this.keys.wake('');
    subscriber.on('message', (channel: string) => {
      if (!channel.startsWith(this.channelPrefix)) return;
      const waiters = this.waiting.get(channel.slice(this.channelPrefix.length));
      if (waiters) for (const wake of [...waiters]) wake();
    });
  }

  /**
   * Registers interest in a queue; resolves once the subscription is active, so events appended
   * after that are sure to wake `onWake`. Returns the function that cancels the interest.
   */
  async listen(queueId: string, onWake: Wake): Promise<() => void> {
    let waiters = this.waiting.get(queueId);
    const first = !waiters;
    if (!waiters) {
      waiters = new Set();
      this.waiting.set(queueId, waiters);
    }
    waiters.add(onWake);
    if (first) this.subscribed.set(queueId, this.subscriber.subscribe(this.keys.wake(queueId)));
    await this.subscribed.get(queueId);
    return () => {
      const set = this.waiting.get(queueId);
      if (!set) return;
      set.delete(onWake);
      if (set.size === 0) {
        this.waiting.delete(queueId);
        this.subscribed.delete(queueId);
        void this.subscriber.unsubscribe(this.keys.wake(queueId)).catch(() => undefined);
      }
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
