import { Prisma, type User } from '../../../generated/prisma/client';
import { QueueStore, type NewQueue } from '../../events/queue-store';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { seesAllPublicChannels } from '../permissions/channels';
import { FEATURE_LEVEL, SERVER_MERGE_BASE, SERVER_VERSION } from '../version';
import { newQueueFor, type QueueParams, type RegisterInput } from './queue-params';
import { statePlan } from './state';
import { at } from '../../core/at';

/** Refusals shared by `POST /register` and on-the-fly registration in `GET /events`. */
export function checkQueueRequest(user: User, params: QueueParams): void {
  // Guests cannot see channels they are not subscribed to, so they may not follow all of them.
  if (params.all_public_streams && !seesAllPublicChannels(user)) {
    throw badRequest('User not authorized for this query');
  }
}

/**
 * The queue a registration creates. A user (usually a bot) with a default events-register channel
 * and no narrow of its own gets that channel as its narrow, as in Zulip.
 */
export async function queueFromRequest(ctx: AppContext, input: RegisterInput): Promise<NewQueue> {
  const { user, params } = input;
  checkQueueRequest(user, params);
  const queue = newQueueFor(input);
  if (queue.narrow.length === 0 && user.defaultEventsRegisterStreamId !== null) {
    const stream = await ctx.db.stream.findUnique({
      where: { id: user.defaultEventsRegisterStreamId },
      select: { name: true },
    });
    if (stream) queue.narrow = [{ operator: 'channel', operand: stream.name }];
  }
  return queue;
}

/**
 * `POST /register`. The queue is created first, so every change committed afterwards has its
 * event in the queue; then the whole state is read in one repeatable-read transaction whose
 * snapshot is recorded on the queue. Events of transactions that snapshot already shows are
 * never handed out, so each change reaches the client exactly once: in the state or as an
 * event (Zulip gets the same guarantee by applying queued events to the state).
 */
export async function registerQueue(
  ctx: AppContext,
  input: RegisterInput,
): Promise<Record<string, unknown>> {
  const { user, realm, params } = input;
  const store = QueueStore.of(ctx);
  const queue = await store.create(await queueFromRequest(ctx, input));
  const { providers, eventTypes } = statePlan(params);
  const { snapshot, parts } = await ctx.db.$transaction(
    async (tx) => {
      const snapshots = await tx.$queryRaw<{ current: string }[]>`
        SELECT pg_current_snapshot()::text AS current`;
      const { current } = at(snapshots, 0);
      const read = { ...ctx, db: tx };
      const fetched: Record<string, unknown>[] = [];
      // One connection: the providers run one after another.
      for (const p of providers) {
        fetched.push(
          await p.fetch({ ctx: read, user, realm, params, capabilities: queue.capabilities }),
        );
      }
      return { snapshot: current, parts: fetched };
    },
    {
      isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead,
      // A burst of registrations (clients reconnecting after a deploy) waits for a connection.
      maxWait: 10_000,
      timeout: 30_000,
    },
  );
  await store.setSnapshot(queue.id, { snapshot, eventTypes });
  return {
    queue_id: queue.id,
    last_event_id: -1,
    zulip_feature_level: FEATURE_LEVEL,
    zulip_version: SERVER_VERSION,
    zulip_merge_base: SERVER_MERGE_BASE,
    ...Object.assign({}, ...parts),
  };
}
