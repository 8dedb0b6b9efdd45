import Joi from 'joi';
import type { Realm, User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import { P, type ParamSpec } from '../../http/params';
import {
  DEFAULT_CAPABILITIES,
  type ClientCapabilities,
  type QueueNarrowTerm,
} from '../../events/types';
import type { NewQueue } from '../../events/queue-store';
import {
  MAX_NARROW_OPERAND_IDS,
  MAX_NARROW_OPERAND_LENGTH,
  MAX_NARROW_TERMS,
} from '../messages/narrow';

/** The parameters of queue registration (`POST /register`, and `GET /events` without queue_id). */
export interface QueueParams {
  apply_markdown: boolean;
  client_gravatar: boolean;
  slim_presence: boolean;
  all_public_streams?: boolean;
  include_subscribers: boolean | 'partial';
  event_types?: string[] | null;
  fetch_event_types?: string[] | null;
  narrow: unknown[];
  client_capabilities: Partial<ClientCapabilities>;
  presence_history_limit_days?: number;
}

// A registered narrow is checked against every event the queue gets: bounded as GET /messages
// bounds its narrows.
const narrowText = Joi.string().max(MAX_NARROW_OPERAND_LENGTH);
const narrowTerm = Joi.alternatives().try(
  Joi.array().items(Joi.alternatives().try(narrowText, Joi.number())).length(2),
  Joi.object({
    operator: narrowText.required(),
    operand: Joi.alternatives()
      .try(narrowText, Joi.number(), Joi.array().max(MAX_NARROW_OPERAND_IDS))
      .required(),
    negated: Joi.boolean(),
  }),
);

export const queueParamSpec: ParamSpec = {
  apply_markdown: P.bool(Joi.boolean().default(false)),
  client_gravatar: P.bool(Joi.boolean().default(true)),
  slim_presence: P.bool(Joi.boolean().default(false)),
  all_public_streams: P.bool(),
  include_subscribers: P.jsonOrText(
    Joi.alternatives().try(Joi.boolean(), Joi.string().valid('partial')).default(false),
  ),
  event_types: P.json(Joi.array().items(Joi.string()).allow(null)),
  fetch_event_types: P.json(Joi.array().items(Joi.string()).allow(null)),
  narrow: P.json(Joi.array().items(narrowTerm).max(MAX_NARROW_TERMS).default([])),
  client_capabilities: P.json(Joi.object().unknown(true).default({})),
  presence_history_limit_days: P.int(),
};

function parseNarrow(narrow: unknown[]): QueueNarrowTerm[] {
  return narrow.map((term) => {
    if (Array.isArray(term)) {
      const [operator, operand] = term as [string, string | number];
      return { operator: String(operator), operand };
    }
    const t = term as { operator: string; operand: string | number; negated?: boolean };
    if (Array.isArray(t.operand)) throw badRequest('Invalid narrow operand');
    return { operator: t.operator, operand: t.operand, negated: t.negated ?? false };
  });
}

function capabilities(raw: Partial<ClientCapabilities>): ClientCapabilities {
  const out: ClientCapabilities = { ...DEFAULT_CAPABILITIES };
  for (const key of Object.keys(DEFAULT_CAPABILITIES) as (keyof ClientCapabilities)[]) {
    if (raw[key] !== undefined) out[key] = Boolean(raw[key]);
  }
  return out;
}

/** The queue a registration asks for; `all_public_streams` defaults to the user's setting. */
export function newQueueFor(
  user: User,
  realm: Realm,
  params: QueueParams,
  client: string,
): NewQueue {
  return {
    userId: user.id,
    realmId: realm.id,
    eventTypes: params.event_types ?? null,
    narrow: parseNarrow(params.narrow ?? []),
    allPublicStreams: params.all_public_streams ?? user.defaultAllPublicStreams,
    applyMarkdown: params.apply_markdown,
    clientGravatar: params.client_gravatar,
    slimPresence: params.slim_presence,
    capabilities: capabilities(params.client_capabilities ?? {}),
    client,
  };
}
