import { setTimeout as sleep } from 'node:timers/promises';
import { Prisma } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import type { AppContext } from '../../core/context';
import { inTransaction } from '../../events/outbox';
import { deleteMessagesInTransaction } from '../messages/delete-message';
import { at } from '../../core/at';

/** Zulip's MESSAGE_BATCH_SIZE: messages archived per transaction, so no lock is held for long. */
const DEFAULT_BATCH_SIZE = 1000;

/** How the job shares the machine with live traffic (RETENTION_DUTY_CYCLE). */
export interface Pacing {
  /**
   * The share of the job's time spent in batches: after a batch that took `t`, it pauses
   * `t * (1 - dutyCycle) / dutyCycle` before the next (1: back to back). A busier machine makes
   * batches slower, so the pauses grow with the load the sends bring.
   */
  dutyCycle: number;
  /** Injected by tests; the wall clock in ms and a real timer otherwise. */
  clock?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The pause after a batch that took `batchMs`, so batches fill `dutyCycle` of the time. */
export function pauseAfter(batchMs: number, dutyCycle: number): number {
  return Math.max(0, (batchMs * (1 - dutyCycle)) / dutyCycle);
}
/** Zulip's ArchiveTransaction.RETENTION_POLICY_BASED. */
const RETENTION_POLICY = 1;

interface RealmPolicy {
  id: number;
  /** The organization's retention in days; -1 (or null) keeps messages forever. */
  days: number;
  /** The shortest positive retention in force anywhere in the organization. */
  min_days: number;
}

interface ExpiredMessage {
  id: number;
  recipientId: number;
  subject: string;
  isChannelMessage: boolean;
}

/**
 * Moves every message older than its retention period to the archive, with its copies,
 * reactions, submessages and upload links, and deletes it (Zulip's archive_messages). A channel
 * message follows its channel's `message_retention_days` when set, else the organization's; a
 * direct message the organization's. Each batch is one transaction that sends the
 * `delete_message` events clients expect. Returns how many messages were archived.
 */
export async function archiveExpiredMessages(
  ctx: AppContext,
  input: { now?: Date; batchSize?: number; pacing?: Pacing } = {},
): Promise<number> {
  const now = input.now ?? new Date();
  const batchSize = input.batchSize ?? DEFAULT_BATCH_SIZE;
  const {
    dutyCycle,
    clock = () => performance.now(),
    sleep: pause = sleep,
  } = input.pacing ?? {
    dutyCycle: ctx.config.retentionDutyCycle,
  };
  const realms = await ctx.db.$queryRaw<RealmPolicy[]>(Prisma.sql`
    SELECT r.id, COALESCE(r.message_retention_days, -1) AS days,
      LEAST(
        CASE WHEN r.message_retention_days > 0 THEN r.message_retention_days END,
        (SELECT MIN(s.message_retention_days) FROM streams s
         WHERE s.realm_id = r.id AND s.message_retention_days > 0)
      ) AS min_days
    FROM realms r`);
  let total = 0;
  for (const realm of realms) {
    if (realm.min_days === null) continue;
    for (;;) {
      const started = clock();
      const archived = await inTransaction(ctx, async (tx, events) => {
        const expired = await lockExpiredBatch(tx, realm, now, batchSize);
        if (expired.length === 0) return 0;
        await copyToArchive(
          tx,
          realm.id,
          expired.map((m) => m.id),
        );
        await deleteMessagesInTransaction(tx, events, realm.id, expired);
        return expired.length;
      });
      total += archived;
      if (archived < batchSize) break;
      // Live traffic gets the machine back between batches: sends wait on no lock of the job,
      // but on the CPU and connections its batches take (docs/benchmarks.md, bench T).
      await pause(pauseAfter(clock() - started, dutyCycle));
    }
  }
  if (total) ctx.log.info('domain', 'archived expired messages', { count: total });
  return total;
}

/**
 * The oldest expired messages of one organization, locked; a message someone is editing or
 * reacting to right now is left for the next batch rather than waited on.
 */
function lockExpiredBatch(
  tx: Tx,
  realm: RealmPolicy,
  now: Date,
  limit: number,
): Promise<ExpiredMessage[]> {
  return tx.$queryRaw<ExpiredMessage[]>(Prisma.sql`
    WITH policy AS (
      SELECT m.id, m.recipient_id, m.subject, m.is_channel_message, m.date_sent,
        CASE WHEN m.is_channel_message THEN COALESCE(s.message_retention_days, ${realm.days})
             ELSE ${realm.days} END AS days
      FROM messages m
      LEFT JOIN streams s ON m.is_channel_message AND s.recipient_id = m.recipient_id
      WHERE m.realm_id = ${realm.id}
        AND m.date_sent < ${now}::timestamptz - make_interval(days => ${realm.min_days})
    )
    SELECT m.id, m.recipient_id AS "recipientId", m.subject,
      m.is_channel_message AS "isChannelMessage"
    FROM messages m JOIN policy p ON p.id = m.id
    WHERE p.days > 0 AND p.date_sent < ${now}::timestamptz - make_interval(days => p.days)
    ORDER BY p.date_sent, m.id
    LIMIT ${limit}
    FOR UPDATE OF m SKIP LOCKED`);
}

/** One archive transaction holding the messages and everything that hangs on them. */
async function copyToArchive(tx: Tx, realmId: number, ids: number[]): Promise<void> {
  const inserted = await tx.$queryRaw<{ id: number }[]>(Prisma.sql`
    INSERT INTO archive_transactions (realm_id, kind) VALUES (${realmId}, ${RETENTION_POLICY})
    RETURNING id`);
  const archiveId = at(inserted, 0).id;
  await tx.$executeRaw(Prisma.sql`
    INSERT INTO archived_messages (id, archive_transaction_id, realm_id, sender_id, recipient_id,
      subject, content, rendered_content, rendered_content_version, date_sent,
      sending_client_name, last_edit_time, last_moved_time, edit_history, has_attachment,
      has_image, has_link, is_channel_message)
    SELECT id, ${archiveId}, realm_id, sender_id, recipient_id, subject, content,
      rendered_content, rendered_content_version, date_sent, sending_client_name,
      last_edit_time, last_moved_time, edit_history, has_attachment, has_image, has_link,
      is_channel_message
    FROM messages WHERE id = ANY(${ids}::int[])`);
  await tx.$executeRaw(Prisma.sql`
    INSERT INTO archived_user_messages (id, user_id, message_id, flags)
    SELECT id, user_id, message_id, flags FROM user_messages
    WHERE message_id = ANY(${ids}::int[])`);
  await tx.$executeRaw(Prisma.sql`
    INSERT INTO archived_reactions (id, user_id, message_id, emoji_name, emoji_code, reaction_type)
    SELECT id, user_id, message_id, emoji_name, emoji_code, reaction_type FROM reactions
    WHERE message_id = ANY(${ids}::int[])`);
  await tx.$executeRaw(Prisma.sql`
    INSERT INTO archived_submessages (id, message_id, sender_id, msg_type, content)
    SELECT id, message_id, sender_id, msg_type, content FROM submessages
    WHERE message_id = ANY(${ids}::int[])`);
  await tx.$executeRaw(Prisma.sql`
    INSERT INTO archived_attachment_messages (attachment_id, message_id)
    SELECT attachment_id, message_id FROM attachment_messages
    WHERE message_id = ANY(${ids}::int[])`);
}
