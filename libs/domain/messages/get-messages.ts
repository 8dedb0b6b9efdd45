import { Prisma, type Realm, type User } from '../../../generated/prisma/client';
import type { Db } from '../../db/client';
import Joi from 'joi';
import { badRequest } from '../../core/errors';
import { P, type Infer } from '../../core/schema';
import { formatMessages, type MessageRow } from './format-message';
import {
  compileNarrow,
  FLAGS_SQL,
  parseNarrow,
  resolveWithOperator,
  type CompiledNarrow,
  type RawNarrow,
} from './narrow';
import type { ApiMessage } from './types';
import { at } from '../../core/at';

/** Zulip's LARGER_THAN_MAX_MESSAGE_ID: the anchor reported for `newest`. */
export const LARGER_THAN_MAX_MESSAGE_ID = 10000000000000000;
export const MAX_MESSAGES_PER_FETCH = 5000;

/** The `anchor` parameter: a message ID, or where to start looking. */
export const anchorParam = P.jsonOrText(
  P.alternatives(P.int(Joi.number().integer().min(0)), P.oneOf('newest', 'oldest', 'first_unread')),
);
export type Anchor = Infer<typeof anchorParam>;

/** Which messages of the narrow: a window around an anchor. */
export interface AnchorWindow {
  anchor: Anchor;
  numBefore: number;
  numAfter: number;
  includeAnchor: boolean;
}

/** ...or the listed messages (`message_ids`, FL 300). */
export interface MessageIdList {
  messageIds: number[];
}

export type GetMessagesInput = (AnchorWindow | MessageIdList) & {
  user: User;
  realm: Realm;
  narrow: RawNarrow;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allowEmptyTopicName: boolean;
};

export interface GetMessagesResult {
  /** Absent for `message_ids` fetches, as in Zulip. */
  anchor?: number;
  found_anchor: boolean;
  found_oldest: boolean;
  found_newest: boolean;
  history_limited: boolean;
  messages: ApiMessage[];
}

/** A message of the window with the user's flags: every column formatting it reads. */
interface Row extends MessageRow {
  flags: bigint;
  match_content?: string;
  match_subject?: string;
}

/** The columns of `MessageRow`, read with the window itself rather than by a second query. */
const MESSAGE_COLUMNS = Prisma.sql`m.id, m.sender_id AS "senderId", m.recipient_id AS "recipientId",
  m.subject, m.content, m.rendered_content AS "renderedContent", m.date_sent AS "dateSent",
  m.sending_client_name AS "sendingClientName", m.last_edit_time AS "lastEditTime",
  m.last_moved_time AS "lastMovedTime", m.edit_history AS "editHistory"`;

/** FROM/WHERE of a narrow for one user: their own copies, plus channel history where readable. */
export function narrowSource(
  user: Pick<User, 'id' | 'realmId'>,
  narrow: CompiledNarrow,
): Prisma.Sql {
  const join = narrow.includeHistory ? Prisma.sql`LEFT JOIN` : Prisma.sql`JOIN`;
  const where = [Prisma.sql`m.realm_id = ${user.realmId}`, ...narrow.conditions];
  return Prisma.sql`FROM messages m ${join} user_messages um ON um.message_id = m.id AND um.user_id = ${user.id}
    WHERE ${Prisma.join(where, ' AND ')}`;
}

/** Highlighted `match_content` / `match_subject` columns for search narrows. */
export function matchColumns(search: string[]): Prisma.Sql {
  if (search.length === 0) return Prisma.empty;
  const query = Prisma.sql`websearch_to_tsquery('english', ${search.join(' ')})`;
  const options = 'StartSel="<span class=""highlight"">", StopSel=</span>, HighlightAll=TRUE';
  return Prisma.sql`, ts_headline('english', m.rendered_content, ${query}, ${options}) AS match_content,
    ts_headline('english', replace(replace(replace(m.subject, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), ${query}, ${options}) AS match_subject`;
}

const tooMany = () =>
  badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);

/**
 * GET /messages (Zulip's get_messages_backend): a window of the narrow around an anchor, or
 * the listed messages of the narrow the user can access.
 */
export async function getMessages(db: Db, input: GetMessagesInput): Promise<GetMessagesResult> {
  const { user } = input;
  const terms = await resolveWithOperator(db, user, parseNarrow(input.narrow));
  if ('messageIds' in input) {
    if (input.messageIds.length > MAX_MESSAGES_PER_FETCH) throw tooMany();
  } else {
    if (input.numBefore + input.numAfter > MAX_MESSAGES_PER_FETCH) throw tooMany();
    if (input.numBefore > 0 && input.numAfter > 0 && !input.includeAnchor) {
      throw badRequest('The anchor can only be excluded at an end of the range');
    }
  }
  const narrow = await compileNarrow(db, user, input.realm, terms);
  const source = narrowSource(user, narrow);
  const columns = Prisma.sql`${MESSAGE_COLUMNS}, ${FLAGS_SQL} AS flags ${matchColumns(narrow.search)}`;

  if ('messageIds' in input) {
    const rows = input.messageIds.length
      ? await db.$queryRaw<Row[]>(Prisma.sql`SELECT ${columns} ${source}
          AND m.id = ANY(${input.messageIds}::bigint[]) ORDER BY m.id ASC`)
      : [];
    // Zulip reports no anchor and no window bounds for a list of IDs.
    return {
      found_anchor: false,
      found_oldest: false,
      found_newest: false,
      history_limited: false,
      messages: await formatRows(db, input, rows),
    };
  }
  return fetchWindow(db, input, source, columns);
}

async function fetchWindow(
  db: Db,
  input: AnchorWindow & Parameters<typeof formatRows>[1],
  source: Prisma.Sql,
  columns: Prisma.Sql,
): Promise<GetMessagesResult> {
  const { numBefore, numAfter } = input;

  let anchor: number;
  if (input.anchor === 'newest') anchor = LARGER_THAN_MAX_MESSAGE_ID;
  else if (input.anchor === 'oldest') anchor = 0;
  else if (input.anchor === 'first_unread') {
    const rows = await db.$queryRaw<{ id: number | null }[]>(Prisma.sql`
      SELECT min(m.id) AS id ${source} AND um.user_id IS NOT NULL AND (${FLAGS_SQL} & 1) = 0`);
    anchor = rows[0]?.id ?? LARGER_THAN_MAX_MESSAGE_ID;
  } else anchor = input.anchor;

  const [before, at, after] = await Promise.all([
    numBefore > 0
      ? db.$queryRaw<Row[]>(Prisma.sql`SELECT ${columns} ${source} AND m.id < ${anchor}::bigint
          ORDER BY m.id DESC LIMIT ${numBefore + 1}`)
      : Promise.resolve([] as Row[]),
    // No message has the IDs `newest` and `oldest` stand for: no query for them.
    input.includeAnchor && anchor > 0 && anchor < LARGER_THAN_MAX_MESSAGE_ID
      ? db.$queryRaw<Row[]>(Prisma.sql`SELECT ${columns} ${source} AND m.id = ${anchor}::bigint`)
      : Promise.resolve([] as Row[]),
    numAfter > 0
      ? db.$queryRaw<Row[]>(Prisma.sql`SELECT ${columns} ${source} AND m.id > ${anchor}::bigint
          ORDER BY m.id ASC LIMIT ${numAfter + 1}`)
      : Promise.resolve([] as Row[]),
  ]);
  const beforeRows = before.slice(0, numBefore).reverse();
  const afterRows = after.slice(0, numAfter);
  const rows = [...beforeRows, ...at, ...afterRows];
  // Without rows before the anchor to look at, "oldest" is only known when anchored there.
  const foundOldest = input.anchor === 'oldest' || (numBefore > 0 && before.length <= numBefore);
  const foundNewest =
    anchor === LARGER_THAN_MAX_MESSAGE_ID || (numAfter > 0 && after.length <= numAfter);

  const messages = await formatRows(db, input, rows);
  return {
    anchor,
    found_anchor: at.length > 0,
    found_oldest: foundOldest,
    found_newest: foundNewest,
    history_limited: false,
    messages,
  };
}

async function formatRows(
  db: Db,
  input: Pick<
    GetMessagesInput,
    'user' | 'realm' | 'applyMarkdown' | 'clientGravatar' | 'allowEmptyTopicName'
  >,
  rows: Row[],
): Promise<ApiMessage[]> {
  const formatted = await formatMessages(db, rows, {
    viewer: input.user,
    realm: input.realm,
    applyMarkdown: input.applyMarkdown,
    clientGravatar: input.clientGravatar,
    allowEmptyTopicName: input.allowEmptyTopicName,
    flags: new Map(rows.map((r) => [r.id, Number(r.flags)])),
  });
  rows.forEach((r, i) => {
    const dict = at(formatted, i);
    if (r.match_content !== undefined) dict.match_content = r.match_content;
    if (r.match_subject !== undefined) dict.match_subject = r.match_subject;
  });
  return formatted;
}
