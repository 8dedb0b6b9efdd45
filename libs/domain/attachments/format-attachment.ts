import type { Prisma } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { attachmentEvent } from '../../protocol/events/attachment';

type Reader = Db | Tx;

/** An attachment as `GET /attachments` and `attachment` events show it; times in milliseconds. */
export interface ApiAttachment {
  id: number;
  name: string;
  path_id: string;
  size: number;
  create_time: number;
  messages: { id: number; date_sent: number }[];
}

/** The matching attachments, oldest first, each with the messages that link it. */
export async function attachmentDicts(
  db: Reader,
  where: Prisma.AttachmentWhereInput,
): Promise<ApiAttachment[]> {
  const rows = await db.attachment.findMany({
    where,
    orderBy: { id: 'asc' },
    include: {
      messages: {
        orderBy: { messageId: 'asc' },
        select: { message: { select: { id: true, dateSent: true } } },
      },
    },
  });
  return rows.map((row) => ({
    id: row.id,
    name: row.fileName,
    path_id: row.pathId,
    size: row.size,
    create_time: row.createTime.getTime(),
    messages: row.messages.map(({ message }) => ({
      id: message.id,
      date_sent: message.dateSent.getTime(),
    })),
  }));
}

/** Bytes of every file uploaded in the organization (Zulip's `upload_space_used`). */
export async function uploadSpaceUsed(db: Reader, realmId: number): Promise<number> {
  const total = await db.attachment.aggregate({ where: { realmId }, _sum: { size: true } });
  return total._sum.size ?? 0;
}

/** The `attachment` event, sent to the file's owner only. */
export async function notifyAttachment(
  tx: Tx,
  events: EventSink,
  owner: { id: number; realmId: number },
  op: 'add' | 'update' | 'remove',
  attachment: ApiAttachment | { id: number },
): Promise<void> {
  await emitAttachmentEvent(events, {
    owner,
    op,
    attachment,
    spaceUsed: await uploadSpaceUsed(tx, owner.realmId),
  });
}

/** As notifyAttachment, for callers that already know the organization's `upload_space_used`. */
export async function emitAttachmentEvent(
  events: EventSink,
  {
    owner,
    op,
    attachment,
    spaceUsed,
  }: {
    owner: { id: number; realmId: number };
    op: 'add' | 'update' | 'remove';
    attachment: ApiAttachment | { id: number };
    spaceUsed: number;
  },
): Promise<void> {
  await events.emit(
    owner.realmId,
    attachmentEvent({ op, attachment, upload_space_used: spaceUsed }),
    [owner.id],
  );
}
