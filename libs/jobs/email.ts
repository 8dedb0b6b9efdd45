import Joi from 'joi';

/** The emails the server sends; each payload carries IDs and the handler re-reads the rows. */
export type EmailJobPayload =
  | { kind: 'invitation'; invitationId: number }
  | { kind: 'deactivation'; userId: number; comment: string }
  | { kind: 'email-change'; emailChangeId: number };

export const emailJobSchema = Joi.alternatives().try(
  Joi.object({ kind: 'invitation', invitationId: Joi.number().integer().required() }),
  Joi.object({
    kind: 'deactivation',
    userId: Joi.number().integer().required(),
    comment: Joi.string().allow('').required(),
  }),
  Joi.object({ kind: 'email-change', emailChangeId: Joi.number().integer().required() }),
);
