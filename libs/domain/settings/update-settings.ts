import { lockRow } from '../../db/locks';
import bcrypt from 'bcrypt';
import { randomBytes } from 'node:crypto';
import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction, type EventSink } from '../../events/outbox';
import type { Tx } from '../../db/client';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { writeEmailChangeEmail } from '../email/enqueue-email';
import { canChangeOwnEmail, canChangeOwnName, usersWhoCanAccess } from '../permissions/users';
import { canSeeDeliveryEmail } from '../permissions/email-visibility';
import { applyPresenceEnabled } from '../presence/presence-setting';
import { passwordIsStrong } from '../auth/password-strength';
import { hashPassword } from '../users/create-user';
import { checkFullName, normalizeEmail } from '../users/validate';
import {
  LANGUAGES,
  settingColumn,
  settingValue,
  USER_SETTING_NAMES,
  type UserSettingChanges,
  type UserSettingName,
} from './user-settings';
import { realmUserEvent } from '../../protocol/events/realm-user';
import { avatarUpdate } from '../users/avatar';
import { userSettingsEvent } from '../../protocol/events/user-settings';

export interface UpdateSettingsInput {
  actor: User;
  realm: Realm;
  fullName?: string;
  email?: string;
  oldPassword?: string;
  newPassword?: string;
  settings: UserSettingChanges;
}

/** How long an email-change confirmation link stays valid. */
const EMAIL_CHANGE_VALIDITY_MS = 24 * 60 * 60 * 1000;

async function checkPasswordChange(
  ctx: AppContext,
  actor: User,
  oldPassword: string | undefined,
  newPassword: string,
): Promise<string> {
  const matches =
    oldPassword !== undefined &&
    actor.passwordHash !== null &&
    (await bcrypt.compare(oldPassword, actor.passwordHash));
  if (!matches) throw badRequest('Wrong password!');
  if (!passwordIsStrong(ctx.config, newPassword)) throw badRequest('New password is too weak!');
  return hashPassword(ctx, newPassword);
}

/** The changes a request makes, checked before the transaction. */
interface SettingsChange {
  fullName?: string;
  newEmail?: string;
  passwordHash?: string;
  changed: UserSettingName[];
}

/**
 * `PATCH /settings`: the caller's name, email (a confirmation sequence), password and personal
 * settings. Each changed setting emits a `user_settings` event; name and time zone changes also
 * tell the organization with `realm_user` events, and a `presence_enabled` change with a
 * `presence` event.
 */
export async function updateSettings(ctx: AppContext, input: UpdateSettingsInput): Promise<void> {
  const change = await checkSettingsChange(ctx, input);
  const { actor, realm } = input;
  const { fullName, newEmail, passwordHash, changed } = change;
  await inTransaction(ctx, async (tx, events) => {
    // The user's row locked first: settings changes of one user take turns.
    await lockRow(tx, 'users', actor.id);
    if (newEmail !== undefined) await startEmailChange(tx, input, newEmail);

    const data: Record<string, unknown> = {};
    for (const name of changed) data[settingColumn(name)] = input.settings[name];
    if (fullName !== undefined) data.fullName = fullName;
    if (passwordHash !== undefined) data.passwordHash = passwordHash;
    if (Object.keys(data).length === 0) return;
    await tx.user.update({ where: { id: actor.id }, data });

    if (
      changed.includes('enable_drafts_synchronization') &&
      !input.settings.enable_drafts_synchronization
    ) {
      await tx.draft.deleteMany({ where: { userId: actor.id } });
    }
    for (const name of changed) {
      const value = input.settings[name];
      if (value === undefined) continue;
      const event = userSettingsEvent({ op: 'update', property: name, value });
      if (name === 'default_language') {
        event.language_name = LANGUAGES[String(input.settings[name])];
      }
      await events.emit(realm.id, event, [actor.id]);
    }
    if (changed.includes('presence_enabled')) {
      await applyPresenceEnabled(
        tx,
        events,
        actor,
        input.settings.presence_enabled === true,
        new Date(),
      );
    }
    if (changed.includes('email_address_visibility')) {
      await emitEmailVisibilityChange(tx, events, input);
    }
    await emitProfileChanges(tx, events, input, change);
  });
}

/** Refuses what the organization forbids and returns what actually changes. */
async function checkSettingsChange(
  ctx: AppContext,
  input: UpdateSettingsInput,
): Promise<SettingsChange> {
  const { actor, realm } = input;
  let fullName: string | undefined;
  if (input.fullName !== undefined && input.fullName !== actor.fullName) {
    if (!canChangeOwnName(actor, realm)) {
      throw badRequest('Name changes are disabled in this organization.');
    }
    fullName = checkFullName(input.fullName);
    if (fullName === actor.fullName) fullName = undefined;
  }
  let newEmail: string | undefined;
  if (input.email !== undefined) {
    if (!canChangeOwnEmail(actor, realm)) {
      throw badRequest('Email address changes are disabled in this organization.');
    }
    const email = normalizeEmail(input.email);
    if (email !== actor.deliveryEmail.toLowerCase()) newEmail = email;
  }
  const passwordHash =
    input.newPassword !== undefined
      ? await checkPasswordChange(ctx, actor, input.oldPassword, input.newPassword)
      : undefined;
  const changed = USER_SETTING_NAMES.filter(
    (name) =>
      input.settings[name] !== undefined && input.settings[name] !== settingValue(actor, name),
  );
  return { fullName, newEmail, passwordHash, changed };
}

/** Starts the confirmation sequence of an email change, replacing one under way. */
async function startEmailChange(
  tx: Tx,
  input: UpdateSettingsInput,
  newEmail: string,
): Promise<void> {
  const { actor, realm } = input;
  const taken = await tx.user.findFirst({
    where: {
      realmId: realm.id,
      id: { not: actor.id },
      OR: [{ email: newEmail }, { deliveryEmail: newEmail }],
    },
    select: { id: true },
  });
  if (taken) throw badRequest(`Email '${newEmail}' already in use`);
  await tx.emailChangeStatus.updateMany({
    where: { userId: actor.id, status: 0 },
    data: { status: 2 },
  });
  const change = await tx.emailChangeStatus.create({
    data: {
      realmId: realm.id,
      userId: actor.id,
      oldEmail: actor.deliveryEmail,
      newEmail,
      confirmationKey: randomBytes(16).toString('hex'),
      expiresAt: new Date(Date.now() + EMAIL_CHANGE_VALIDITY_MS),
    },
  });
  await writeEmailChangeEmail(tx, change.id);
}

/** Users who gain or lose sight of the real address are told (null when hidden; FL 163). */
async function emitEmailVisibilityChange(
  tx: Tx,
  events: EventSink,
  input: UpdateSettingsInput,
): Promise<void> {
  const { actor, realm } = input;
  const viewers = await tx.user.findMany({
    where: {
      id: { in: await usersWhoCanAccess(tx, actor), not: actor.id },
    },
    select: { id: true, role: true },
  });
  const after = {
    id: actor.id,
    emailAddressVisibility: Number(input.settings.email_address_visibility),
  };
  const gained: number[] = [];
  const lost: number[] = [];
  for (const viewer of viewers) {
    const before = canSeeDeliveryEmail(viewer, actor);
    const now = canSeeDeliveryEmail(viewer, after);
    if (before !== now) (now ? gained : lost).push(viewer.id);
  }
  for (const [users, value] of [
    [gained, actor.deliveryEmail],
    [lost, null],
  ] as const) {
    await events.emit(
      realm.id,
      realmUserEvent({ op: 'update', person: { user_id: actor.id, delivery_email: value } }),
      [...users],
    );
  }
  // A client_gravatar client computes a Gravatar only from an address it sees (`avatarUrlFor`):
  // whoever gained or lost sight of it gets the avatar again, to compute or to keep.
  if (actor.avatarSource === 'G') {
    await events.emit(realm.id, realmUserEvent({ op: 'update', person: avatarUpdate(actor) }), [
      ...gained,
      ...lost,
    ]);
  }
}

/** Name and time zone changes, told to everyone who can see the user. */
async function emitProfileChanges(
  tx: Tx,
  events: EventSink,
  input: UpdateSettingsInput,
  { fullName, changed }: SettingsChange,
): Promise<void> {
  const { actor, realm } = input;
  const timezone = input.settings.timezone;
  const timezoneChanged = changed.includes('timezone') && timezone !== undefined;
  if (fullName === undefined && !changed.includes('timezone')) return;
  const audience = await usersWhoCanAccess(tx, actor);
  if (fullName !== undefined) {
    await events.emit(
      realm.id,
      realmUserEvent({ op: 'update', person: { user_id: actor.id, full_name: fullName } }),
      audience,
    );
  }
  if (timezoneChanged) {
    await events.emit(
      realm.id,
      realmUserEvent({
        op: 'update',
        person: { email: actor.email, user_id: actor.id, timezone },
      }),
      audience,
    );
  }
}

export type { UserSettingName };
