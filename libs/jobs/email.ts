import Joi from 'joi';

/** The emails the server sends; each payload carries IDs and the handler re-reads the rows. */
export type EmailJobPayload =
  | { kind: 'invitation'; invitationId: number }
  | { kind: 'deactivation'; userId: number; comment: string }
  | { kind: 'email-change'; emailChangeId: number }
  /** The link is made again from the user's row and `issuedAt`, so the payload holds no secret. */
  | { kind: 'password-reset'; userId: number; issuedAt: number }
  /** A reset asked for an address with no active account in the organization: no link. */
  | { kind: 'password-reset-no-account'; realmId: number; email: string; deactivated: boolean };

export const emailJobSchema = Joi.alternatives().try(
  Joi.object({ kind: 'invitation', invitationId: Joi.number().integer().required() }),
  Joi.object({
    kind: 'deactivation',
    userId: Joi.number().integer().required(),
    comment: Joi.string().allow('').required(),
  }),
  Joi.object({ kind: 'email-change', emailChangeId: Joi.number().integer().required() }),
  Joi.object({
    kind: 'password-reset',
    userId: Joi.number().integer().required(),
    issuedAt: Joi.number().integer().required(),
  }),
  Joi.object({
    kind: 'password-reset-no-account',
    realmId: Joi.number().integer().required(),
    email: Joi.string().email({ tlds: false }).required(),
    deactivated: Joi.boolean().required(),
  }),
);
