import type { User } from '../../../generated/prisma/client';
import { zuliprcText } from '../../../libs/domain/bots/bot-zuliprc';
import { createBot } from '../../../libs/domain/bots/create-bot';
import { ServiceInterface } from '../../../libs/domain/bots/service-token';
import type { AppContext } from '../../../libs/core/context';
import { realmUrl } from '../../../libs/domain/realms/realm-url';
import { decryptApiKey } from '../../../libs/domain/users/api-keys';
import { changeEmail } from '../../../libs/domain/users/change-email';
import { changeRole } from '../../../libs/domain/users/change-role';
import { createUser } from '../../../libs/domain/users/create-user';
import { deactivateUser } from '../../../libs/domain/users/deactivate-user';
import { reactivateUser } from '../../../libs/domain/users/reactivate-user';
import { regenerateApiKey } from '../../../libs/domain/users/regenerate-api-key';
import { setPassword } from '../../../libs/domain/users/set-password';
import {
  BotType,
  isRoleCode,
  Role,
  ROLE_NAMES,
  type RoleCode,
} from '../../../libs/domain/users/roles';
import { optionalFlag, parseFlags, requireFlag, UsageError } from '../args';
import { findRealm, findUser } from './lookup';
import { realmAdminIds } from '../../../libs/domain/permissions/roles';

function parseRole(value: string | undefined, fallback: RoleCode): RoleCode {
  if (value === undefined) return fallback;
  const role = ROLE_NAMES[value.toLowerCase()] ?? Number(value);
  if (!isRoleCode(role)) {
    throw new UsageError(
      `Unknown role '${value}': use owner, admin, moderator, member, guest or 100-600`,
    );
  }
  return role;
}

export async function createUserCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm', 'email', 'full-name', 'role', 'password']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const { user, apiKey } = await createUser(ctx, {
    realm,
    email: requireFlag(flags, 'email'),
    fullName: requireFlag(flags, 'full-name'),
    role: parseRole(optionalFlag(flags, 'role'), Role.MEMBER),
    password: optionalFlag(flags, 'password') ?? null,
  });
  return {
    id: user.id,
    email: user.email,
    full_name: user.fullName,
    role: user.role,
    api_key: apiKey,
  };
}

const SHORT_NAME = /^[a-z0-9._-]+$/i;

/**
 * Bot emails follow Zulip's form: `<short-name>-bot@<organization host>`. With `--payload-url`
 * the bot is an outgoing-webhook bot (`--interface native|slack`, default native).
 */
export async function createBotCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, [
    'realm',
    'owner',
    'full-name',
    'short-name',
    'payload-url',
    'interface',
  ]);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const owner = await findUser(ctx, realm, requireFlag(flags, 'owner'));
  const shortName = requireFlag(flags, 'short-name');
  if (!SHORT_NAME.test(shortName))
    throw new UsageError('--short-name may use letters, digits, ".", "_" and "-"');
  const payloadUrl = optionalFlag(flags, 'payload-url');
  const iface = optionalFlag(flags, 'interface') ?? 'native';
  if (iface !== 'native' && iface !== 'slack')
    throw new UsageError('--interface must be native or slack');
  const {
    bot: user,
    apiKey,
    serviceToken,
  } = await createBot(ctx, {
    realm,
    actor: owner,
    fullName: requireFlag(flags, 'full-name'),
    shortName,
    botType: payloadUrl ? BotType.OUTGOING_WEBHOOK : BotType.GENERIC,
    payloadUrl,
    interface: iface === 'slack' ? ServiceInterface.SLACK : ServiceInterface.NATIVE,
    skipPermissionCheck: true,
  });
  return {
    id: user.id,
    email: user.email,
    full_name: user.fullName,
    bot_type: user.botType,
    api_key: apiKey,
    ...(serviceToken && payloadUrl ? { token: serviceToken } : {}),
  };
}

export async function changeRoleCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm', 'user', 'role']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const target = await findUser(ctx, realm, requireFlag(flags, 'user'));
  const updated = await changeRole(
    ctx,
    null,
    target,
    parseRole(requireFlag(flags, 'role'), Role.MEMBER),
  );
  return {
    id: updated.id,
    email: updated.email,
    role: updated.role,
    api_key: decryptApiKey(updated.apiKeyCiphertext, ctx.config.secretKey),
  };
}

export async function regenerateApiKeyCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm', 'user']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const user = await findUser(ctx, realm, requireFlag(flags, 'user'));
  return { id: user.id, email: user.email, api_key: await regenerateApiKey(ctx, user) };
}

/** Prints the `[api]` section of a `zuliprc`, which Zulip's clients and bots read. */
export async function zuliprcCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm', 'user']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const user = await findUser(ctx, realm, requireFlag(flags, 'user'));
  const apiKey = decryptApiKey(user.apiKeyCiphertext, ctx.config.secretKey);
  const site = realmUrl(realm.stringId, ctx.config);
  return {
    id: user.id,
    email: user.email,
    api_key: apiKey,
    site,
    // Outgoing-webhook bots also get their `token=` line.
    zuliprc: zuliprcText(
      ctx,
      realm,
      user,
      (await ctx.db.service.findFirst({ where: { userId: user.id } }))?.token ?? null,
    ),
  };
}

const roleName = (role: number) =>
  Object.entries(ROLE_NAMES).find(([, code]) => code === role)?.[0] ?? String(role);

/** The organization's users (`--all`: deactivated ones and bots too), by ID. */
export async function listUsersCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm'], ['all']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const users = await ctx.db.user.findMany({
    where: {
      realmId: realm.id,
      isSystemBot: false,
      ...(flags.all ? {} : { isActive: true, isBot: false }),
    },
    orderBy: { id: 'asc' },
  });
  return {
    realm: realm.stringId,
    users: users.map((u) => ({ ...listed(u), is_active: u.isActive, is_bot: u.isBot })),
  };
}

/** The user as the listing commands print it. */
const listed = (u: User) => ({
  id: u.id,
  email: u.email,
  delivery_email: u.deliveryEmail,
  full_name: u.fullName,
  role: u.role,
  role_name: roleName(u.role),
});

/** The user as the account-changing commands print it. */
const account = (ctx: AppContext, u: User) => ({
  id: u.id,
  email: u.email,
  full_name: u.fullName,
  is_active: u.isActive,
  api_key: decryptApiKey(u.apiKeyCiphertext, ctx.config.secretKey),
});

const reloaded = (ctx: AppContext, u: User) =>
  ctx.db.user.findUniqueOrThrow({ where: { id: u.id } });

/** Deactivates the user and the bots they own; `--notify` emails them (with the comment, if any). */
export async function deactivateUserCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm', 'user', 'comment'], ['notify']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const target = await findUser(ctx, realm, requireFlag(flags, 'user'));
  const comment = optionalFlag(flags, 'comment');
  if (comment !== undefined && !flags.notify) throw new UsageError('--comment needs --notify');
  await deactivateUser(ctx, {
    actor: null,
    realm,
    target,
    notificationComment: flags.notify ? (comment ?? '') : null,
  });
  return account(ctx, await reloaded(ctx, target));
}

export async function reactivateUserCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm', 'user']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const target = await findUser(ctx, realm, requireFlag(flags, 'user'));
  await reactivateUser(ctx, { actor: null, realm, target });
  return account(ctx, await reloaded(ctx, target));
}

/** Changes the login and delivery email at once, without the confirmation link users get. */
export async function changeEmailCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm', 'user', 'new-email']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const target = await findUser(ctx, realm, requireFlag(flags, 'user'));
  const updated = await changeEmail(ctx, {
    actor: null,
    realm,
    target,
    newEmail: requireFlag(flags, 'new-email'),
  });
  return { ...account(ctx, updated), old_email: target.email };
}

/**
 * Sets a password. `--password-stdin` reads it from standard input (first line), which keeps it
 * out of the shell history and the process list.
 */
export async function setPasswordCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm', 'user', 'password'], ['password-stdin']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const target = await findUser(ctx, realm, requireFlag(flags, 'user'));
  const given = optionalFlag(flags, 'password');
  if ((given === undefined) === !flags['password-stdin']) {
    throw new UsageError('give exactly one of --password P and --password-stdin');
  }
  const password = given ?? (await firstLineOfStdin());
  await setPassword(ctx, target, password);
  return { ...account(ctx, target), password_set: true };
}

async function firstLineOfStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const [line = ''] = Buffer.concat(chunks).toString('utf8').split(/\r?\n/, 1);
  return line;
}

/**
 * `show-admins`: the organization's active owners and administrators (Zulip's `manage.py
 * show_admins`), owners first.
 */
export async function showAdminsCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const ids = await realmAdminIds(ctx.db, realm.id);
  const admins = await ctx.db.user.findMany({
    where: { id: { in: [...ids] } },
    orderBy: [{ role: 'asc' }, { id: 'asc' }],
  });
  return {
    realm: realm.stringId,
    administrators: admins.map(listed),
  };
}
