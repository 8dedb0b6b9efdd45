import { Prisma, type Realm, type Stream, type User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import Joi from 'joi';
import { ApiError, badNarrow, badNarrowCombination } from '../../core/errors';
import { P, type Infer } from '../../core/schema';
import { seesAllPublicChannels } from '../permissions/channels';
import { checkAccess, Permission } from '../permissions/access';
import { publicChannelRecipientsSql } from '../permissions/channel-kinds';
import { RecipientType } from '../recipients';
import { accessMessage } from './access';
import { huddleHash } from './addressees';
import { Flag } from './flags';
import { emptyTopicDisplayName, NO_TOPIC, RESOLVED_TOPIC_PREFIX } from './topic-name';
import { equalsIgnoringCase } from '../../db/text-match';
import { at } from '../../core/at';

type Reader = Db | Tx;

export type NarrowOperand = string | number | number[];

export interface NarrowTerm {
  operator: string;
  operand: NarrowOperand;
  negated: boolean;
}

/** Terms in one narrow; Zulip's clients send a handful. */
export const MAX_NARROW_TERMS = 50;
/** Characters in one operand: a search string, a channel or topic name, an email list. */
export const MAX_NARROW_OPERAND_LENGTH = 1000;
/** User IDs in one operand (`dm`); a group conversation has far fewer. */
export const MAX_NARROW_OPERAND_IDS = 1000;

// Bounded so that no narrow, however hostile, makes a query with thousands of terms or a
// full-text search of a whole book.
const narrowText = P.string(Joi.string().allow('').max(MAX_NARROW_OPERAND_LENGTH));

/** The `narrow` parameter: objects, or legacy [operator, operand] pairs. */
export const narrowParam = P.array(
  P.alternatives(
    P.object({
      operator: narrowText.required(),
      operand: P.alternatives(
        narrowText,
        P.int(),
        P.array(P.int(), { max: MAX_NARROW_OPERAND_IDS }),
      ).required(),
      negated: P.bool(),
    }),
    P.array(narrowText, { length: 2 }),
  ),
  { max: MAX_NARROW_TERMS },
);

/** Narrow as clients send it. */
export type RawNarrow = Infer<typeof narrowParam>;

export function parseNarrow(raw: RawNarrow | undefined): NarrowTerm[] {
  return (raw ?? []).map((item) => {
    if (Array.isArray(item)) {
      // The schema holds a pair to two elements.
      return { operator: at(item, 0), operand: at(item, 1), negated: false };
    }
    return { operator: item.operator, operand: item.operand, negated: item.negated ?? false };
  });
}

/** Operators that name a conversation, replaced by the one a `with` term resolves to. */
const CONVERSATION_OPERATORS = new Set(['stream', 'channel', 'topic', 'dm', 'pm-with']);

/** Does the narrow name one conversation on its own (a DM, or a channel and a topic)? */
function definesConversation(terms: NarrowTerm[]): boolean {
  const ops = new Set(terms.map((t) => t.operator));
  return (
    ops.has('dm') ||
    ops.has('pm-with') ||
    ((ops.has('channel') || ops.has('stream')) && ops.has('topic'))
  );
}

/**
 * The `with` operator (FL 271): replaces the narrow's conversation terms with the conversation
 * the message is in now, so links to a message keep working after it moves (Zulip's
 * update_narrow_terms_containing_with_operator). When the user cannot access the message, a
 * narrow that names a conversation by itself is used without the `with` term; any other is
 * refused.
 */
export async function resolveWithOperator(
  db: Reader,
  user: Pick<User, 'id' | 'role' | 'realmId'>,
  terms: NarrowTerm[],
): Promise<NarrowTerm[]> {
  const withTerms = terms.filter((t) => t.operator === 'with');
  if (withTerms.length === 0) return terms;
  if (withTerms.length > 1) throw badNarrowCombination("Duplicate 'with' operators.");
  const rest = terms.filter((t) => t.operator !== 'with');
  const { operand } = at(withTerms, 0);
  const messageId =
    typeof operand === 'number'
      ? operand
      : typeof operand === 'string' && /^\s*-?\d+\s*$/.test(operand)
        ? Number(operand)
        : NaN;
  if (!Number.isInteger(messageId)) throw badNarrow("Invalid 'with' operator");

  const message = await accessMessage(db, user, messageId).then(
    (found) => found.message,
    (err: unknown) => {
      if (err instanceof ApiError) return null;
      throw err;
    },
  );
  if (!message) {
    if (definesConversation(rest)) return rest;
    throw badNarrow("Invalid 'with' operator");
  }
  const others = rest.filter((t) => !CONVERSATION_OPERATORS.has(t.operator));
  const recipient = await db.recipient.findUniqueOrThrow({ where: { id: message.recipientId } });
  let conversation: NarrowTerm[];
  if (recipient.type === RecipientType.STREAM) {
    conversation = [
      { operator: 'channel', operand: recipient.typeId, negated: false },
      { operator: 'topic', operand: message.subject, negated: false },
    ];
  } else if (recipient.type === RecipientType.PERSONAL) {
    conversation = [{ operator: 'dm', operand: [recipient.typeId], negated: false }];
  } else {
    const members = await db.subscription.findMany({
      where: { recipientId: recipient.id },
      select: { userId: true },
    });
    conversation = [{ operator: 'dm', operand: members.map((m) => m.userId), negated: false }];
  }
  return [...conversation, ...others];
}

export interface CompiledNarrow {
  /** SQL conditions over `m` (messages) and `flags` (the user's flag bits, historical if none). */
  conditions: Prisma.Sql[];
  /**
   * True when every message of the narrow is in channels whose history the user may read, so
   * messages without a UserMessage row are included (with the `historical` flag).
   */
  includeHistory: boolean;
  /** Full-text query text of `search` terms (for highlighting). */
  search: string[];
}

/** The user's flag bits for the row: their UserMessage flags or, from history, read + historical. */
export const FLAGS_SQL = Prisma.sql`COALESCE(um.flags, ${Flag.read | Flag.historical})`;

const mentionBits = Flag.mentioned | Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned;

async function findChannel(
  db: Reader,
  realm: Pick<Realm, 'id'>,
  operand: NarrowOperand,
): Promise<Stream | null> {
  if (typeof operand === 'number')
    return db.stream.findFirst({ where: { realmId: realm.id, id: operand } });
  if (typeof operand === 'string') {
    if (/^\d+$/.test(operand)) {
      const byId = await db.stream.findFirst({ where: { realmId: realm.id, id: Number(operand) } });
      if (byId) return byId;
    }
    return db.stream.findFirst({
      where: { realmId: realm.id, name: equalsIgnoringCase(operand.trim()) },
    });
  }
  return null;
}

async function findUserIds(
  db: Reader,
  realm: Pick<Realm, 'id'>,
  me: Pick<User, 'id'>,
  operand: NarrowOperand,
): Promise<number[]> {
  const items: (string | number)[] = Array.isArray(operand)
    ? operand
    : typeof operand === 'number'
      ? [operand]
      : operand
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  const ids: number[] = [];
  for (const item of items) {
    if (item === 'me') {
      ids.push(me.id);
      continue;
    }
    const user =
      typeof item === 'number' || /^\d+$/.test(item)
        ? await db.user.findFirst({
            where: { realmId: realm.id, id: Number(item) },
            select: { id: true },
          })
        : await db.user.findFirst({
            where: { realmId: realm.id, email: item.toLowerCase() },
            select: { id: true },
          });
    if (!user) throw badNarrow(`unknown user ${String(item)}`);
    ids.push(user.id);
  }
  return ids;
}

/** May the user read the channel's history without having received it? */
async function readsHistory(
  db: Reader,
  user: Pick<User, 'id' | 'role' | 'realmId'>,
  channelId: number,
): Promise<boolean> {
  const readable = await checkAccess(db, {
    auth: { user },
    permission: Permission.ChannelHistory,
    ids: [channelId],
  });
  return readable.has(channelId);
}

/** Turns a narrow into SQL conditions (Zulip's NarrowBuilder), resolving names once. */
export async function compileNarrow(
  db: Reader,
  user: Pick<User, 'id' | 'role' | 'realmId' | 'recipientId'>,
  realm: Pick<Realm, 'id'>,
  terms: NarrowTerm[],
): Promise<CompiledNarrow> {
  const conditions: Prisma.Sql[] = [];
  const search: string[] = [];
  let includeHistory = false;
  for (const term of terms) {
    const { operator, operand, negated } = term;
    let cond: Prisma.Sql;
    const text = typeof operand === 'string' ? operand : String(operand);
    switch (operator) {
      case 'channel':
      case 'stream': {
        const channel = await findChannel(db, realm, operand);
        if (!channel) throw badNarrow('unknown channel');
        cond = Prisma.sql`m.recipient_id = ${channel.recipientId}`;
        if (!negated && (await readsHistory(db, user, channel.id))) includeHistory = true;
        break;
      }
      case 'channels':
      case 'streams': {
        if (text !== 'public' && text !== 'web-public')
          throw badNarrow(`unknown channels operand ${text}`);
        const webOnly = text === 'web-public';
        cond = Prisma.sql`m.recipient_id IN (${publicChannelRecipientsSql(realm.id, webOnly)})`;
        if (!negated && seesAllPublicChannels(user)) includeHistory = true;
        break;
      }
      case 'topic':
      case 'subject': {
        let topic = text.trim();
        if (topic === NO_TOPIC || topic === emptyTopicDisplayName(realm)) topic = '';
        cond = Prisma.sql`(m.is_channel_message AND lower(m.subject) = lower(${topic}))`;
        break;
      }
      case 'sender': {
        const [id] = await findUserIds(db, realm, user, operand);
        cond = Prisma.sql`m.sender_id = ${id}`;
        break;
      }
      case 'dm':
      case 'pm-with':
      case 'dm-including':
      case 'group-pm-with':
        cond = await conversationCondition(db, { realm, user, operator, operand });
        break;
      case 'is':
        cond = isCondition(text, user.id);
        break;
      case 'has':
        cond = hasCondition(text);
        break;
      case 'id': {
        const id = Number(operand);
        if (!Number.isInteger(id)) throw badNarrow(`invalid message ID ${text}`);
        cond = Prisma.sql`m.id = ${id}`;
        break;
      }
      case 'near':
        // Only moves the client's view; it does not filter.
        continue;
      case 'search':
        cond = Prisma.sql`m.search_tsv @@ websearch_to_tsquery('english', ${text})`;
        if (!negated) search.push(text);
        break;
      default:
        throw badNarrow(`unknown operator ${operator}`);
    }
    conditions.push(negated ? Prisma.sql`NOT (${cond})` : cond);
  }
  return { conditions, includeHistory, search };
}

/** The direct-message operators: one conversation, or the conversations including a user. */
async function conversationCondition(
  db: Reader,
  {
    realm,
    user,
    operator,
    operand,
  }: {
    realm: Pick<Realm, 'id'>;
    user: Pick<User, 'id' | 'role' | 'realmId' | 'recipientId'>;
    operator: string;
    operand: NarrowOperand;
  },
): Promise<Prisma.Sql> {
  if (operator === 'dm' || operator === 'pm-with') {
    const ids = [...new Set([user.id, ...(await findUserIds(db, realm, user, operand))])];
    let recipientId: number | null | undefined;
    if (ids.length === 1) recipientId = user.recipientId;
    else {
      const group = await db.directMessageGroup.findUnique({
        where: { huddleHash: huddleHash(ids) },
      });
      recipientId = group?.recipientId;
    }
    return recipientId
      ? Prisma.sql`(NOT m.is_channel_message AND m.recipient_id = ${recipientId})`
      : Prisma.sql`FALSE`;
  }
  const [id] = await findUserIds(db, realm, user, operand);
  const groupsOnly = operator === 'group-pm-with';
  return Prisma.sql`(NOT m.is_channel_message AND (
    m.recipient_id IN (SELECT s.recipient_id FROM subscriptions s JOIN recipients r ON r.id = s.recipient_id
      WHERE r.type = ${RecipientType.DIRECT_MESSAGE_GROUP} AND s.user_id = ${id}
      AND (${!groupsOnly} OR (SELECT count(*) FROM subscriptions s2 WHERE s2.recipient_id = s.recipient_id) > 2))
    OR (${id === user.id && !groupsOnly} AND m.recipient_id = ${user.recipientId ?? -1})))`;
}

function isCondition(operand: string, userId: number): Prisma.Sql {
  switch (operand) {
    case 'starred':
      return Prisma.sql`(${FLAGS_SQL} & ${Flag.starred}) <> 0`;
    case 'mentioned':
      return Prisma.sql`(${FLAGS_SQL} & ${mentionBits}) <> 0`;
    case 'alerted':
      return Prisma.sql`(${FLAGS_SQL} & ${Flag.has_alert_word}) <> 0`;
    case 'unread':
      return Prisma.sql`(${FLAGS_SQL} & ${Flag.read}) = 0`;
    case 'dm':
    case 'private':
      return Prisma.sql`NOT m.is_channel_message`;
    case 'resolved':
      return Prisma.sql`(m.is_channel_message AND m.subject LIKE ${`${RESOLVED_TOPIC_PREFIX}%`})`;
    case 'followed':
      return Prisma.sql`(m.is_channel_message AND EXISTS (SELECT 1 FROM user_topics ut
        WHERE ut.user_id = ${userId} AND ut.recipient_id = m.recipient_id
        AND lower(ut.topic_name) = lower(m.subject) AND ut.visibility_policy = 3))`;
    case 'muted':
      return Prisma.sql`(m.is_channel_message AND EXISTS (SELECT 1 FROM user_topics ut
        WHERE ut.user_id = ${userId} AND ut.recipient_id = m.recipient_id
        AND lower(ut.topic_name) = lower(m.subject) AND ut.visibility_policy = 1))`;
    default:
      throw badNarrow(`unknown 'is' operand ${operand}`);
  }
}

function hasCondition(operand: string): Prisma.Sql {
  switch (operand) {
    case 'link':
      return Prisma.sql`m.has_link`;
    case 'image':
      return Prisma.sql`m.has_image`;
    case 'attachment':
      return Prisma.sql`m.has_attachment`;
    case 'reaction':
      return Prisma.sql`EXISTS (SELECT 1 FROM reactions r WHERE r.message_id = m.id)`;
    default:
      throw badNarrow(`unknown 'has' operand ${operand}`);
  }
}
