import { randomUUID } from 'node:crypto';
import type { AppContext } from '../core/context';
import { pause } from '../core/pause';
import { connectRedis } from '../redis/connect';
import { startWhenReachable } from '../stores/start-when-reachable';
import { logFailure } from '../stores/failures';
import { Dispatcher } from './dispatcher';
import { missedMessageHook } from './missed-message-hook';
import { eventKeys } from './keys';
import { QueueStore } from './queue-store';
import { startSweeper } from './sweeper';
import { Waker } from './waker';
import { consumerName } from './partition-owners';

/** What one `events` process runs: the queue store, the wake-up subscriber, dispatcher, sweeper, GC. */
export interface EventsTier {
  store: QueueStore;
  waker: Waker;
  dispatcher: Dispatcher;
  stop(): Promise<void>;
}

/** How long stopping waits for each of the sweeper and the dispatcher. */
const STOP_WAIT_MS = 2000;

const settleWithin = (ms: number, work: Promise<void>): Promise<void> =>
  Promise.race([work.catch(() => undefined), pause(ms)]);

export async function startEventsTier(
  ctx: AppContext,
  options: { dispatch?: boolean; gcIntervalMs?: number } = {},
): Promise<EventsTier> {
  const processId = consumerName(process.pid, randomUUID().slice(0, 8), ctx.config.eventsReplica);
  // Polls (and their heartbeats' appends) get a connection of their own that pipelines each
  // event-loop tick's commands into one write: thousands of polls woken at once cost a few
  // writes, not one each.
  // Its scripts are defined before its first command (the store's constructor), as ioredis's
  // auto pipelining requires; the shared connection, where libraries define scripts lazily
  // (the rate limiter), does not pipeline automatically.
  const pollRedis = connectRedis(ctx.config, { autoPipelining: true, log: ctx.log });
  const store = QueueStore.of(ctx, pollRedis);
  const waker = new Waker(
    connectRedis(ctx.config, { shardedSubscriber: true, log: ctx.log }),
    eventKeys(ctx.config.redisPrefix).wake(processId),
  );
  waker.acknowledge = (queues) => {
    for (const { queueId, userId, acked } of queues) {
      store
        .poll(queueId, userId, acked, null)
        .catch((err: unknown) => logFailure(ctx.log, 'queue', 'acknowledging failed', err));
    }
  };
  // Dispatch appends on a connection of its own: behind the polls' connection, a message's
  // appends to its last partitions would wait for the thousands of re-polls its first
  // partitions' recipients just sent.
  const dispatchRedis = connectRedis(ctx.config, { log: ctx.log });
  const dispatcher = new Dispatcher(ctx, QueueStore.of(ctx, dispatchRedis), processId, waker);
  const dispatching = options.dispatch ?? true;
  // Started at once when Redis answers; during an outage, in the background once it returns.
  let subscribed = false;
  const starting = startWhenReachable(ctx, 'events tier', async () => {
    if (!subscribed) await waker.start();
    subscribed = true;
    if (dispatching) await dispatcher.start();
  });
  await starting.tried;
  // Background work is shared out, not repeated by every replica: a replica collects the
  // garbage of the partitions it leads, and the leader of partition 0 sweeps the outbox (its
  // lease moves within seconds when that replica dies).
  const stopSweeper = dispatching
    ? startSweeper(ctx, () => dispatcher.partitions.includes(0))
    : async () => undefined;
  const gc = setInterval(() => {
    const partitions = dispatching ? dispatcher.partitions : undefined;
    store
      .collectGarbage(Date.now(), partitions, (queue) => missedMessageHook(ctx, queue))
      .catch((err: unknown) => logFailure(ctx.log, 'queue', 'queue GC failed', err));
  }, options.gcIntervalMs ?? 30_000);
  return {
    store,
    waker,
    dispatcher,
    async stop() {
      clearInterval(gc);
      starting.cancel();
      // The sweep and the dispatch loops end after their Redis command in flight, which during
      // an outage hangs on a reconnecting connection: they get a bounded time, then the
      // connections close under them.
      await settleWithin(STOP_WAIT_MS, stopSweeper());
      if (dispatching) await settleWithin(STOP_WAIT_MS, dispatcher.stop());
      waker.close();
      pollRedis.disconnect();
      dispatchRedis.disconnect();
    },
  };
}
