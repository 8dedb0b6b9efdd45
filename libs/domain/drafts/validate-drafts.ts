import type { Realm, User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import { P, type Infer } from '../../core/schema';
import type { AppContext } from '../../core/context';
import type { Tx } from '../../db/client';
import { lockRow } from '../../db/locks';
import { checkAccess, Permission, requireAccess } from '../permissions/access';
import { MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH } from '../length-limits';
import { at } from '../../core/at';

/** A draft as clients send it. */
export const draftInput = P.object({
  type: P.oneOf('', 'stream', 'private').required(),
  to: P.array(P.int()).required(),
  topic: P.string().required(),
  content: P.string().required(),
  timestamp: P.number(),
});

export type DraftInput = Infer<typeof draftInput>;

export function checkSyncEnabled(user: User): void {
  if (!user.enableDraftsSynchronization) {
    throw badRequest('User has disabled synchronizing drafts.');
  }
}

interface DraftRow {
  type: string;
  toJson: number[];
  recipientId: number | null;
  topic: string;
  content: string;
  lastEditTime: Date;
}

/** Validates drafts against the organization (channel access, user IDs) in bulk. */
export async function draftRows(
  ctx: AppContext,
  user: User,
  realm: Realm,
  drafts: DraftInput[],
): Promise<DraftRow[]> {
  const streamIds = new Set<number>();
  const userIds = new Set<number>();
  for (const draft of drafts) {
    if (draft.content.trim() === '') throw badRequest('Content must not be empty');
    if (draft.content.includes('\0')) throw badRequest('Content must not contain null bytes');
    if (draft.timestamp !== undefined && draft.timestamp < 0) {
      throw badRequest('Timestamp must not be negative.');
    }
    if (draft.type === 'stream') {
      if (draft.topic.includes('\0')) throw badRequest('Topic must not contain null bytes');
      const [streamId, ...others] = draft.to;
      if (streamId === undefined || others.length) {
        throw badRequest('Must specify exactly 1 channel ID for channel messages');
      }
      streamIds.add(streamId);
    } else if (draft.type === 'private') {
      for (const id of draft.to) userIds.add(id);
    }
  }
  const streams = await ctx.db.stream.findMany({
    where: { realmId: realm.id, id: { in: [...streamIds] } },
  });
  const readable = await checkAccess(ctx.db, {
    auth: { user },
    permission: Permission.ChannelRead,
    ids: streams.map((s) => s.id),
  });
  const streamById = new Map(streams.map((s) => [s.id, s]));
  const knownUsers = new Set(
    (
      await ctx.db.user.findMany({
        where: { realmId: realm.id, id: { in: [...userIds] } },
        select: { id: true },
      })
    ).map((u) => u.id),
  );
  return drafts.map((draft) => {
    const lastEditTime = new Date(
      draft.timestamp !== undefined ? Math.round(draft.timestamp * 1000) : Date.now(),
    );
    const content = draft.content.slice(0, MAX_MESSAGE_LENGTH);
    if (draft.type === 'stream') {
      const stream = streamById.get(at(draft.to, 0));
      if (!stream || !readable.has(stream.id)) throw badRequest('Invalid channel ID');
      return {
        type: 'stream',
        toJson: [stream.id],
        recipientId: stream.recipientId,
        topic: draft.topic.slice(0, MAX_TOPIC_LENGTH),
        content,
        lastEditTime,
      };
    }
    if (draft.type === 'private' && draft.to.length > 0) {
      for (const id of draft.to) if (!knownUsers.has(id)) throw badRequest(`Invalid user ID ${id}`);
      const to = [...new Set(draft.to)].sort((a, b) => a - b);
      return { type: 'private', toJson: to, recipientId: null, topic: '', content, lastEditTime };
    }
    return { type: '', toJson: [], recipientId: null, topic: '', content, lastEditTime };
  });
}

/** Locks a draft, and refuses it unless it is the user's own (`Permission.DraftUpdate`, ...). */
export async function lockOwnDraft(
  tx: Tx,
  {
    user,
    draftId,
    permission,
  }: { user: User; draftId: number; permission: Permission.DraftUpdate | Permission.DraftDelete },
): Promise<void> {
  // Locked, then read: of an edit and a delete at once, the later one finds what the first left.
  await lockRow(tx, 'drafts', draftId);
  await requireAccess(tx, { auth: { user }, permission, ids: [draftId] });
}
