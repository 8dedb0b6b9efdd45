import type { User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { canAccessAttachment } from '../permissions/attachments';
import { attachmentDicts, notifyAttachment, type ApiAttachment } from './format-attachment';

const ATTRIBUTE = /\b(?:href|src)="([^"]*)"/g;
// The renderer makes links to the organization's own URL relative, so a link to an upload here
// is `/user_uploads/<realm_id>/...` or `user_uploads/<realm_id>/...`; absolute URLs are elsewhere.
const UPLOAD_LINK = /^\/?user_uploads\/(\d+\/[^?#]+)/;

const unescapeAttribute = (value: string) =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** Path IDs of this server's uploads that rendered message HTML links (Zulip's potential_attachment_path_ids). */
export function linkedUploadPathIds(html: string): string[] {
  const found = new Set<string>();
  for (const [, raw = ''] of html.matchAll(ATTRIBUTE)) {
    const [, pathId] = UPLOAD_LINK.exec(unescapeAttribute(raw)) ?? [];
    if (pathId === undefined) continue;
    try {
      found.add(decodeURIComponent(pathId));
    } catch {
      found.add(pathId);
    }
  }
  return [...found];
}

export interface ClaimInput {
  messageId: number;
  sender: Pick<User, 'id' | 'role' | 'realmId'>;
  renderedContent: string;
  /** Did the message's previous content link uploads (false for a new message)? */
  hadUploadLinks: boolean;
}

/**
 * Makes the message's attachment links match its rendered content (Zulip's
 * do_claim_attachments and check_attachment_reference_change), in the caller's transaction. A
 * sender may link a file they uploaded or can already read (resharing); other links claim
 * nothing. Each owner whose file gained or lost this message gets an `attachment` update.
 * Returns the sender's own files this left linked from no message (`detached_uploads`).
 */
export async function claimAttachments(
  tx: Tx,
  events: EventSink,
  input: ClaimInput,
): Promise<ApiAttachment[]> {
  const { messageId, sender } = input;
  const wanted = linkedUploadPathIds(input.renderedContent);
  if (!wanted.length && !input.hadUploadLinks) return [];

  const linked = (
    await tx.attachmentMessage.findMany({
      where: { messageId },
      select: { attachment: { select: { id: true, pathId: true, ownerId: true } } },
    })
  ).map((row) => row.attachment);
  const linkedPaths = new Set(linked.map((a) => a.pathId));
  const removed = linked.filter((a) => !wanted.includes(a.pathId));
  const candidates = await tx.attachment.findMany({
    where: { realmId: sender.realmId, pathId: { in: wanted.filter((p) => !linkedPaths.has(p)) } },
  });
  const added = [];
  for (const attachment of candidates) {
    if (await canAccessAttachment(tx, sender, attachment)) added.push(attachment);
  }
  if (removed.length) {
    await tx.attachmentMessage.deleteMany({
      where: { messageId, attachmentId: { in: removed.map((a) => a.id) } },
    });
  }
  if (added.length) {
    await tx.attachmentMessage.createMany({
      data: added.map((a) => ({ attachmentId: a.id, messageId })),
      skipDuplicates: true,
    });
  }

  const owners = new Map([...added, ...removed].map((a) => [a.id, a.ownerId]));
  if (!owners.size) return [];
  const dicts = await attachmentDicts(tx, { id: { in: [...owners.keys()] } });
  for (const dict of dicts) {
    const owner = { id: owners.get(dict.id) as number, realmId: sender.realmId };
    await notifyAttachment(tx, events, owner, 'update', dict);
  }
  const removedIds = new Set(removed.map((a) => a.id));
  return dicts.filter(
    (d) => removedIds.has(d.id) && owners.get(d.id) === sender.id && !d.messages.length,
  );
}

/**
 * Makes a scheduled message's attachment links match its rendered content (Zulip claims
 * attachments for scheduled messages too), so the unclaimed-upload clean-up keeps a file that a
 * message scheduled far ahead still needs. Runs in the caller's transaction; no events, since
 * attachment dictionaries list sent messages only.
 */
export async function linkScheduledAttachments(
  tx: Tx,
  input: {
    scheduledMessageId: number;
    sender: Pick<User, 'id' | 'role' | 'realmId'>;
    renderedContent: string;
  },
): Promise<void> {
  const { scheduledMessageId, sender } = input;
  await tx.attachmentScheduledMessage.deleteMany({ where: { scheduledMessageId } });
  const wanted = linkedUploadPathIds(input.renderedContent);
  if (!wanted.length) return;
  const candidates = await tx.attachment.findMany({
    where: { realmId: sender.realmId, pathId: { in: wanted } },
  });
  const allowed = [];
  for (const attachment of candidates) {
    if (await canAccessAttachment(tx, sender, attachment)) allowed.push(attachment);
  }
  if (allowed.length) {
    await tx.attachmentScheduledMessage.createMany({
      data: allowed.map((a) => ({ attachmentId: a.id, scheduledMessageId })),
      skipDuplicates: true,
    });
  }
}
