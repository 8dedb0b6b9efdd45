import type { Realm, User } from '../../../generated/prisma/client';
import { ApiError } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { inTransaction } from '../../events/outbox';
import { realmUserEvent } from '../../protocol/events/realm-user';
import { usersWhoCanAccess } from '../permissions/users';
import { realmEmailRule, type EmailRefusal } from '../realm-domains/email-restrictions';
import { applyEmailChange } from '../users/change-email';
import { changeRole } from '../users/change-role';
import { createUser } from '../users/create-user';
import { deactivateUser } from '../users/deactivate-user';
import { reactivateUser } from '../users/reactivate-user';
import { Role } from '../users/roles';
import { scimBadRequest, scimConflict, scimForbidden } from './scim-errors';
import type { ScimUserChange } from './scim-user';

/** Zulip's SCIM messages for an address the organization does not take. */
const REFUSAL_DETAIL: Record<EmailRefusal, string> = {
  'outside-domains': "This email domain isn't allowed in this organization.",
  disposable: 'Disposable email domains are not allowed for this realm.',
  'contains-plus': "Email address can't contain + characters.",
};

/** The organization's address rules and uniqueness, checked before anything is written. */
async function checkNewAddress(
  ctx: AppContext,
  realm: Realm,
  email: string,
  exceptUserId: number | null,
): Promise<void> {
  const refusal = (await realmEmailRule(ctx.db, realm))(email);
  if (refusal) throw scimBadRequest(REFUSAL_DETAIL[refusal], 'invalidValue');
  const taken = await ctx.db.user.findFirst({
    where: {
      realmId: realm.id,
      OR: [{ email }, { deliveryEmail: email }],
      ...(exceptUserId === null ? {} : { id: { not: exceptUserId } }),
    },
    select: { id: true },
  });
  if (taken) throw scimConflict(`Email address already in use: ${email}`);
}

/** Runs domain actions, telling their refusals (the only owner, a race on an address) in SCIM's form. */
async function scimAction<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (/already in use/.test(err.message)) throw scimConflict(err.message);
    throw scimBadRequest(err.message);
  }
}

const refuseDeactivatedRealm = (realm: Realm) => {
  if (realm.deactivated) throw scimForbidden('This organization has been deactivated.');
};

/**
 * POST /scim/v2/Users: a new member, as Zulip's SCIM create does it. The identity provider is
 * the organization's own, so an invitation is not needed; its address rules still hold.
 */
export async function createScimUser(
  ctx: AppContext,
  input: { realm: Realm; change: ScimUserChange },
): Promise<User> {
  const { realm, change } = input;
  refuseDeactivatedRealm(realm);
  const email = change.email!;
  await checkNewAddress(ctx, realm, email, null);
  const { user } = await scimAction(() =>
    createUser(ctx, {
      realm,
      email,
      fullName: change.fullName!,
      role: change.role ?? Role.MEMBER,
    }),
  );
  return user;
}

/**
 * PUT and PATCH: the name and address change together, then the role, then the account is
 * deactivated or reactivated, each through the same action an administrator's change uses (so
 * clients hear the same events, and deactivation ends the user's sessions).
 */
export async function updateScimUser(
  ctx: AppContext,
  input: { realm: Realm; target: User; change: ScimUserChange },
): Promise<User> {
  const { realm, change } = input;
  refuseDeactivatedRealm(realm);
  let target = input.target;
  const newEmail =
    change.email !== undefined && change.email !== target.deliveryEmail ? change.email : null;
  if (newEmail !== null) await checkNewAddress(ctx, realm, newEmail, target.id);
  const fullName =
    change.fullName !== undefined && change.fullName !== target.fullName ? change.fullName : null;
  if (fullName !== null || newEmail !== null) {
    await scimAction(() =>
      inTransaction(ctx, async (tx, events) => {
        const audience = await usersWhoCanAccess(tx, target);
        if (fullName !== null) {
          await tx.user.update({ where: { id: target.id }, data: { fullName } });
          await events.emit(
            realm.id,
            realmUserEvent({ op: 'update', person: { user_id: target.id, full_name: fullName } }),
            audience,
          );
        }
        if (newEmail !== null) {
          await applyEmailChange(tx, events, { realm, target, newEmail, audience });
        }
      }),
    );
  }
  const fresh = () => ctx.db.user.findUniqueOrThrow({ where: { id: target.id } });
  target = await fresh();
  if (change.role !== undefined && change.role !== target.role) {
    target = await scimAction(() => changeRole(ctx, null, target, change.role!));
  }
  if (change.active === false && target.isActive) {
    await scimAction(() =>
      deactivateUser(ctx, { actor: null, realm, target, notificationComment: null }),
    );
  } else if (change.active === true && !target.isActive) {
    await scimAction(() => reactivateUser(ctx, { actor: null, realm, target }));
  }
  return fresh();
}
