import type { Wakeup } from './wake-protocol';
import type { Waker } from './waker';

/** One delivery's part in the wake-ups of this process's polls. */
export interface LocalDelivery {
  /** The wake-up channel the polls of this process record on their queues. */
  channel: string;
  /** Whether polls of this process follow the queue (`FollowedQueues`): it learns every append. */
  follows(queueId: string): boolean;
  /** The delivery has appended, with these wake-ups, or failed; only the first call counts. */
  end(wakeups?: [string, Wakeup][]): void;
}

/** The longest a wake-up waits for other deliveries under way (a slow or failing Redis). */
const MAX_HOLD_MS = 150;

/**
 * Wake-ups of this process's own polls, found by its partitions' deliveries and held until
 * every delivery under way has appended. Answering is the heaviest work a message brings (a
 * 10,000-member channel is 10,000 HTTP answers, and then 10,000 re-polls): started after the
 * first partition's appends, it held the other partitions' round trips back for the whole of it,
 * and their appends then queued behind the re-polls in Redis. A queue is fed by one partition, so
 * holding keeps each queue's wake-ups in order.
 */
export class LocalWakeups {
  private underWay = 0;
  private held: [string, Wakeup][] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly waker: Waker) {}

  /** A delivery starts: wake-ups found meanwhile wait for its appends. */
  begin(): LocalDelivery {
    this.underWay++;
    let ended = false;
    return {
      channel: this.waker.channel,
      follows: (queueId) => this.waker.followed.follows(queueId),
      end: (wakeups = []) => {
        if (ended) return;
        ended = true;
        this.end(wakeups);
      },
    };
  }

  /**
   * A delivery of these partitions failed, perhaps after appending: what this process knows of
   * their queues is doubted, and their polls read Redis.
   */
  failed(partitions: number[]): void {
    for (const partition of partitions) this.waker.followed.distrust(partition);
  }

  private end(wakeups: [string, Wakeup][]): void {
    this.underWay--;
    for (const wakeup of wakeups) this.held.push(wakeup);
    if (this.underWay === 0) this.flush();
    else if (this.held.length && !this.timer) {
      this.timer = setTimeout(() => this.flush(), MAX_HOLD_MS);
    }
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const held = this.held;
    this.held = [];
    this.waker.wakeAppended(held);
  }
}
