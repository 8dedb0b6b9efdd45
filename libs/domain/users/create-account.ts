import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { requireCanCreateUsers } from '../permissions/user-creation';
import { realmEmailRule, type EmailRefusal } from '../realm-domains/email-restrictions';
import { passwordIsStrong } from '../auth/password-strength';
import { createUserInTransaction, hashPassword } from './create-user';
import { Role } from './roles';
import { checkFullName, normalizeEmail } from './validate';

export interface CreateAccountInput {
  actor: User;
  realm: Realm;
  email: string;
  password: string;
  fullName: string;
}

/** Zulip's wording for `POST /users` when the organization refuses the address. */
const REFUSAL_TEXT: Record<EmailRefusal, (email: string) => string> = {
  'outside-domains': (email) => `Email '${email}' not allowed in this organization`,
  disposable: () => 'Disposable email addresses are not allowed in this organization',
  'contains-plus': () => 'Email addresses containing + are not allowed.',
};

function checkEmail(raw: string): string {
  try {
    return normalizeEmail(raw);
  } catch {
    // Zulip's CreateUserForm rejects a malformed address with this one message.
    throw badRequest('Bad name or username');
  }
}

/**
 * `POST /users`: an administrator with `can_create_users` creates a member account with a
 * password, without an invitation. The address must be well formed and allowed by the
 * organization's rules; an address already in use is refused when the account is created.
 */
export async function createAccount(ctx: AppContext, input: CreateAccountInput): Promise<number> {
  requireCanCreateUsers(input.actor);
  const fullName = checkFullName(input.fullName);
  const email = checkEmail(input.email);
  const refusal = (await realmEmailRule(ctx.db, input.realm))(email);
  if (refusal) throw badRequest(REFUSAL_TEXT[refusal](email));
  if (!passwordIsStrong(ctx.config, input.password)) throw badRequest('The password is too weak.');
  const passwordHash = await hashPassword(ctx, input.password);
  const { user } = await inTransaction(ctx, (tx, events) =>
    createUserInTransaction(ctx, tx, events, {
      realm: input.realm,
      email,
      fullName,
      role: Role.MEMBER,
      passwordHash,
    }),
  );
  return user.id;
}
