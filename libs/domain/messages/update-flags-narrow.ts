import { Prisma, type Realm, type User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { FLAGS_SQL, compileNarrow, parseNarrow, type RawNarrow } from './narrow';
import { LARGER_THAN_MAX_MESSAGE_ID, narrowSource, type Anchor } from './get-messages';
import { applyFlagChange, validateFlagChange, type FlagOp } from './update-flags';

/** The server bounds each side of the range, as Zulip does, to keep transactions small. */
const MAX_RANGE = 5000;

export interface FlagsNarrowResult {
  processed_count: number;
  updated_count: number;
  first_processed_id: number | null;
  last_processed_id: number | null;
  found_oldest: boolean;
  found_newest: boolean;
  ignored_because_not_subscribed_channels?: number[];
}

/** POST /messages/flags/narrow (FL 155): change a flag on a window of a narrow. */
export async function updateFlagsForNarrow(
  ctx: AppContext,
  input: {
    user: User;
    realm: Realm;
    anchor: Anchor;
    includeAnchor: boolean;
    numBefore: number;
    numAfter: number;
    narrow: RawNarrow;
    op: string;
    flag: string;
  },
): Promise<FlagsNarrowResult> {
  const flag = validateFlagChange(input.flag, input.op);
  const { user } = input;
  const numBefore = Math.min(input.numBefore, MAX_RANGE);
  const numAfter = Math.min(input.numAfter, MAX_RANGE);
  const narrow = await compileNarrow(ctx.db, user, input.realm, parseNarrow(input.narrow));
  const source = narrowSource(user, narrow);
  return inTransaction(ctx, async (tx, events) => {
    let anchor: number;
    if (input.anchor === 'newest') anchor = LARGER_THAN_MAX_MESSAGE_ID;
    else if (input.anchor === 'oldest') anchor = 0;
    else if (input.anchor === 'first_unread') {
      const rows = await tx.$queryRaw<{ id: number | null }[]>(Prisma.sql`
        SELECT min(m.id) AS id ${source} AND um.user_id IS NOT NULL AND (${FLAGS_SQL} & 1) = 0`);
      anchor = rows[0]?.id ?? LARGER_THAN_MAX_MESSAGE_ID;
    } else anchor = input.anchor;
    const before = await tx.$queryRaw<{ id: number }[]>(Prisma.sql`
      SELECT m.id ${source} AND m.id < ${anchor}::bigint ORDER BY m.id DESC LIMIT ${numBefore + 1}`);
    const at = input.includeAnchor
      ? await tx.$queryRaw<{ id: number }[]>(
          Prisma.sql`SELECT m.id ${source} AND m.id = ${anchor}::bigint`,
        )
      : [];
    const after = await tx.$queryRaw<{ id: number }[]>(Prisma.sql`
      SELECT m.id ${source} AND m.id > ${anchor}::bigint ORDER BY m.id ASC LIMIT ${numAfter + 1}`);
    const ids = [
      ...before
        .slice(0, numBefore)
        .map((r) => r.id)
        .reverse(),
      ...at.map((r) => r.id),
      ...after.slice(0, numAfter).map((r) => r.id),
    ];
    const result = await applyFlagChange(tx, events, {
      user,
      realm: input.realm,
      messageIds: ids,
      flag,
      op: input.op as FlagOp,
    });
    const out: FlagsNarrowResult = {
      processed_count: ids.length,
      updated_count: result.messages.length,
      first_processed_id: ids[0] ?? null,
      last_processed_id: ids.at(-1) ?? null,
      found_oldest: input.anchor === 'oldest' || before.length <= numBefore,
      found_newest: anchor === LARGER_THAN_MAX_MESSAGE_ID || after.length <= numAfter,
    };
    if (result.ignored_because_not_subscribed_channels) {
      out.ignored_because_not_subscribed_channels = result.ignored_because_not_subscribed_channels;
    }
    return out;
  });
}
