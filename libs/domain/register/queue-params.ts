import Joi from 'joi';
import type { Realm, User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import { P, type InferShape } from '../../core/schema';
import {
  DEFAULT_CAPABILITIES,
  type ClientCapabilities,
  type QueueNarrowTerm,
} from '../../protocol/queue';
import type { NewQueue } from '../../events/queue-store';
import {
  MAX_NARROW_OPERAND_IDS,
  MAX_NARROW_OPERAND_LENGTH,
  MAX_NARROW_TERMS,
} from '../messages/narrow';
import { at } from '../../core/at';

// A registered narrow is checked against every event the queue gets: bounded as GET /messages
// bounds its narrows.
const narrowText = P.string(Joi.string().max(MAX_NARROW_OPERAND_LENGTH));
const narrowTerm = P.alternatives(
  P.array(P.alternatives(narrowText, P.number()), { length: 2 }),
  P.object({
    operator: narrowText.required(),
    // A list operand is refused by parseNarrow below, with Zulip's wording.
    operand: P.alternatives(
      narrowText,
      P.number(),
      P.array(P.any(), { max: MAX_NARROW_OPERAND_IDS }),
    ).required(),
    negated: P.bool(),
  }),
);

/** The parameters of queue registration (`POST /register`, and `GET /events` without queue_id). */
export const queueParamSpec = {
  apply_markdown: P.bool().default(false),
  client_gravatar: P.bool().default(true),
  slim_presence: P.bool().default(false),
  all_public_streams: P.bool(),
  include_subscribers: P.jsonOrText(P.alternatives(P.bool(), P.oneOf('partial'))).default(false),
  event_types: P.array(P.string(Joi.string())).nullable(),
  fetch_event_types: P.array(P.string(Joi.string())).nullable(),
  narrow: P.array(narrowTerm, { max: MAX_NARROW_TERMS }).default([]),
  client_capabilities: P.dict().default({}),
  presence_history_limit_days: P.int(),
};

export type QueueParams = InferShape<typeof queueParamSpec>;

function parseNarrow(narrow: QueueParams['narrow']): QueueNarrowTerm[] {
  return narrow.map((term) => {
    if (Array.isArray(term)) {
      // The schema holds a pair to two elements.
      return { operator: String(at(term, 0)), operand: at(term, 1) };
    }
    if (Array.isArray(term.operand)) throw badRequest('Invalid narrow operand');
    return { operator: term.operator, operand: term.operand, negated: term.negated ?? false };
  });
}

function capabilities(raw: Record<string, unknown>): ClientCapabilities {
  const out: ClientCapabilities = { ...DEFAULT_CAPABILITIES };
  for (const key of Object.keys(DEFAULT_CAPABILITIES) as (keyof ClientCapabilities)[]) {
    if (raw[key] !== undefined) out[key] = Boolean(raw[key]);
  }
  return out;
}

/** A registration: who asks, with which parameters, from which client. */
export interface RegisterInput {
  user: User;
  realm: Realm;
  params: QueueParams;
  client: string;
}

/** The queue a registration asks for; `all_public_streams` defaults to the user's setting. */
export function newQueueFor({ user, realm, params, client }: RegisterInput): NewQueue {
  return {
    userId: user.id,
    realmId: realm.id,
    eventTypes: params.event_types ?? null,
    narrow: parseNarrow(params.narrow),
    allPublicStreams: params.all_public_streams ?? user.defaultAllPublicStreams,
    applyMarkdown: params.apply_markdown,
    clientGravatar: params.client_gravatar,
    slimPresence: params.slim_presence,
    capabilities: capabilities(params.client_capabilities),
    client,
  };
}
