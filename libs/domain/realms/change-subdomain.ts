import type { Realm } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { badRequest } from '../../core/errors';
import { lockRow } from '../../db/locks';
import { checkSubdomain } from './create-realm';
import { checkSubdomainReachable } from './ip-host';

/**
 * The operator moves an organization to another subdomain (Zulip's `manage.py
 * change_realm_subdomain`), checked as a new organization's would be. Links and clients that
 * name the old host stop reaching it; its users sign in at the new one.
 */
export async function changeSubdomain(
  ctx: AppContext,
  input: { realm: Realm; subdomain: string },
): Promise<Realm> {
  const stringId = checkSubdomain(input.subdomain);
  checkSubdomainReachable(stringId, ctx.config);
  if (stringId === input.realm.stringId) return input.realm;
  return ctx.db.$transaction(async (tx) => {
    await lockRow(tx, 'realms', input.realm.id);
    const taken = await tx.realm.findUnique({ where: { stringId }, select: { id: true } });
    if (taken) throw badRequest('Subdomain already in use. Please choose a different one.');
    return tx.realm.update({ where: { id: input.realm.id }, data: { stringId } });
  });
}
