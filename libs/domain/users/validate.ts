import Joi from 'joi';
import { badRequest } from '../../core/errors';

const emailSchema = Joi.string()
  .email({ tlds: false, allowUnicode: true, minDomainSegments: 1 })
  .max(254);

export function normalizeEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (emailSchema.validate(trimmed).error) throw badRequest(`Invalid email '${email}'`);
  return trimmed;
}

export const MAX_NAME_LENGTH = 100;
// Characters that would break mention syntax, as Zulip refuses them; control characters too.
const FORBIDDEN_NAME_CHARACTERS = /[*`\\>"@]/;
const hasControlCharacter = (s: string) => [...s].some((c) => c.charCodeAt(0) < 0x20);

export function checkFullName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length > MAX_NAME_LENGTH) throw badRequest('Name too long!');
  if (trimmed.length === 0) throw badRequest('Name too short!');
  if (FORBIDDEN_NAME_CHARACTERS.test(trimmed) || hasControlCharacter(trimmed))
    throw badRequest('Invalid characters in name!');
  return trimmed;
}
