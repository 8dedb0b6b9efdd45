import type { Realm } from '../../../generated/prisma/client';
import type { AppContext } from '../../../libs/core/context';
import { changeSubdomain } from '../../../libs/domain/realms/change-subdomain';
import { createRealm } from '../../../libs/domain/realms/create-realm';
import { deactivateRealm, reactivateRealm } from '../../../libs/domain/realms/deactivate-realm';
import { deleteRealm } from '../../../libs/domain/realms/delete-realm';
import { realmUrl } from '../../../libs/domain/realms/realm-url';
import { REALM_SETTINGS, updateRealm } from '../../../libs/domain/realms/update-realm';
import { optionalFlag, parseFlags, requireFlag, UsageError } from '../args';
import { findRealm } from './lookup';

export async function createRealmCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['subdomain', 'name', 'owner-email', 'owner-name', 'password']);
  const created = await createRealm(ctx, {
    stringId: optionalFlag(flags, 'subdomain') ?? '',
    name: requireFlag(flags, 'name'),
    owner: {
      email: requireFlag(flags, 'owner-email'),
      fullName: requireFlag(flags, 'owner-name'),
      password: optionalFlag(flags, 'password') ?? null,
    },
  });
  return {
    realm: {
      id: created.realm.id,
      subdomain: created.realm.stringId,
      name: created.realm.name,
      url: realmUrl(created.realm.stringId, ctx.config),
    },
    id: created.owner.user.id,
    email: created.owner.user.email,
    api_key: created.owner.apiKey,
  };
}

/** Every organization, deactivated ones too, with its URL and how many active humans it has. */
export async function listRealmsCommand(ctx: AppContext, argv: string[]) {
  parseFlags(argv, []);
  const realms = await ctx.db.realm.findMany({ orderBy: { id: 'asc' } });
  const humans = await ctx.db.user.groupBy({
    by: ['realmId'],
    where: { isActive: true, isBot: false },
    _count: { _all: true },
  });
  const counts = new Map(humans.map((h) => [h.realmId, h._count._all]));
  return {
    realms: realms.map((r) => ({
      id: r.id,
      subdomain: r.stringId,
      name: r.name,
      url: realmUrl(r.stringId, ctx.config),
      deactivated: r.deactivated,
      active_humans: counts.get(r.id) ?? 0,
      date_created: r.dateCreated.toISOString(),
    })),
  };
}

const realmSummary = (ctx: AppContext, r: Realm) => ({
  id: r.id,
  subdomain: r.stringId,
  name: r.name,
  url: realmUrl(r.stringId, ctx.config),
  deactivated: r.deactivated,
});

export async function renameRealmCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm', 'name']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const checked = REALM_SETTINGS.name.schema.validate(requireFlag(flags, 'name'));
  if (checked.error) throw new UsageError(`--name: ${checked.error.message}`);
  await updateRealm(ctx, { actor: null, realm, changes: { name: checked.value as string } });
  return realmSummary(ctx, await ctx.db.realm.findUniqueOrThrow({ where: { id: realm.id } }));
}

export async function deactivateRealmCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  await deactivateRealm(ctx, realm);
  return realmSummary(ctx, await ctx.db.realm.findUniqueOrThrow({ where: { id: realm.id } }));
}

export async function reactivateRealmCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  await reactivateRealm(ctx, realm);
  return realmSummary(ctx, await ctx.db.realm.findUniqueOrThrow({ where: { id: realm.id } }));
}

/**
 * `delete-realm --realm S --confirm S`: deletes a deactivated organization and everything in it
 * for good (Zulip's `manage.py delete_realm`); `--confirm` names the subdomain again.
 */
export async function deleteRealmCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm', 'confirm']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const confirm = requireFlag(flags, 'confirm');
  const deleted = await deleteRealm(ctx, {
    realm,
    confirm: confirm === 'root' ? '' : confirm.toLowerCase(),
  });
  return { id: realm.id, subdomain: realm.stringId, deleted };
}

/** `change-subdomain --realm S --new-subdomain T` (Zulip's `manage.py change_realm_subdomain`). */
export async function changeSubdomainCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm', 'new-subdomain']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const subdomain = flags['new-subdomain'];
  if (typeof subdomain !== 'string') throw new UsageError('--new-subdomain is required');
  return realmSummary(ctx, await changeSubdomain(ctx, { realm, subdomain }));
}
