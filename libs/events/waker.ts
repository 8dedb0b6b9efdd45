import type { RedisClient } from '../core/context';
import type { BatchCommand } from '../redis/by-node';
import { isCluster } from '../redis/connect';

type Wake = () => void;

/**
 * Wakes long-polls when their queue gets events. Each events process has one wake-up channel: a
 * poll about to wait records the channel on its queue (in the same script that found the queue
 * empty), and the dispatcher publishes the ids of the queues it appended to on the channel of the
 * process where they wait, one message per process and batch. So a poll costs no SUBSCRIBE, and
 * thousands of waiting polls are callbacks in memory behind one subscriber connection.
 *
 * On a cluster the channel is a sharded one (SSUBSCRIBE/SPUBLISH, Redis 7): a message goes to the
 * shard owning the channel's slot only, instead of being broadcast over the cluster bus to every
 * node, and ioredis moves the subscription along when a replica takes the slot over.
 */
export class Waker {
  private readonly waiting = new Map<string, Set<Wake>>();
  /** Polls waiting now: kept as a count, since health checks and metrics read it often. */
  private waitingPolls = 0;

  constructor(
    private readonly subscriber: RedisClient,
    /** This process's wake-up channel. */
    readonly channel: string,
  ) {
    subscriber.on(
      isCluster(subscriber) ? 'smessage' : 'message',
      (from: string, message: string) => {
        if (from !== channel) return;
        for (const queueId of message.split(',')) {
          const waiters = this.waiting.get(queueId);
          if (waiters) for (const wake of [...waiters]) wake();
        }
      },
    );
  }

  /** Subscribes to the process's channel; polls may wait once this resolves. */
  async start(): Promise<void> {
    if (isCluster(this.subscriber)) await this.subscriber.ssubscribe(this.channel);
    else await this.subscriber.subscribe(this.channel);
  }

  /** Registers interest in a queue; returns the function that cancels it. */
  listen(queueId: string, onWake: Wake): () => void {
    let waiters = this.waiting.get(queueId);
    if (!waiters) {
      waiters = new Set();
      this.waiting.set(queueId, waiters);
    }
    if (!waiters.has(onWake)) this.waitingPolls++;
    waiters.add(onWake);
    return () => {
      const set = this.waiting.get(queueId);
      if (!set?.delete(onWake)) return;
      this.waitingPolls--;
      if (set.size === 0) this.waiting.delete(queueId);
    };
  }

  get pollCount(): number {
    return this.waitingPolls;
  }

  close(): void {
    this.waiting.clear();
    this.waitingPolls = 0;
    this.subscriber.disconnect();
  }
}

/** The command that wakes the polls waiting for `queueIds` on the process listening on `channel`. */
export function wakeCommand(redis: RedisClient, channel: string, queueIds: string[]): BatchCommand {
  const message = queueIds.join(',');
  return isCluster(redis)
    ? { key: channel, add: (p) => p.spublish(channel, message) }
    : { key: channel, add: (p) => p.publish(channel, message) };
}
