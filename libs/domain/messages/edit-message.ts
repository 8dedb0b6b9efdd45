import type { Realm } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { inTransaction } from '../../events/outbox';
import { renderMarkdown } from '../../markdown';
import type { ApiAttachment } from '../attachments/format-attachment';
import { markdownContextFor } from '../markdown-context';
import { plainReadsOf } from '../realm-row-cache';
import { accessLockedMessage } from './access';
import { normalizeContent } from './content';
import {
  buildEditRequest,
  checkEditInput,
  type EditMessageInput,
  type NewContent,
} from './edit-request';
import { doUpdateMessage } from './update-message';

/**
 * PATCH /messages/{message_id}: content edits and topic/channel moves (Zulip's
 * update_message_backend). The input is checked and the new content rendered first; then one
 * transaction locks the message, checks the user may read it, builds the edit request with every
 * other check (`buildEditRequest`, no writes) and carries it out (`doUpdateMessage`).
 */
export async function editMessage(
  ctx: AppContext,
  input: EditMessageInput,
): Promise<{ detachedUploads: ApiAttachment[] }> {
  checkEditInput(input);
  // Rendering reads only the organization's emoji and linkifiers, none of the message: it runs
  // before the transaction, so the message's row is not held locked while it does.
  const content =
    input.content === undefined ? undefined : await newContent(ctx, input.realm, input.content);
  return inTransaction(ctx, async (tx, events) => {
    // The row locked first, then every check on it: two edits at once take turns, and each
    // writes its history entry onto the other's (Zulip's access_message with lock_message).
    // A message the user cannot read answers like a missing one, so an edit cannot probe for IDs.
    const { message } = await accessLockedMessage(tx, input.user, input.messageId);
    const request = await buildEditRequest(tx, { input, message, content });
    if (!request) return { detachedUploads: [] };
    return doUpdateMessage(ctx, tx, events, request);
  });
}

/** Zulip turns an emptied message into "(deleted)" rather than refusing it. */
async function newContent(ctx: AppContext, realm: Realm, content: string): Promise<NewContent> {
  const text = content.trim() === '' ? '(deleted)' : normalizeContent(content);
  const rendered = await renderMarkdown(
    text,
    await markdownContextFor(ctx.db, ctx.config, realm, plainReadsOf(ctx)),
  );
  return { text, rendered };
}
