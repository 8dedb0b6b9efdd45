import type { Realm, User } from '../../../generated/prisma/client';
import type { AppContext } from '../../../libs/core/context';
import { UsageError } from '../args';

/** `--realm` names an organization by subdomain ('' or "root" for the root organization). */
export async function findRealm(ctx: AppContext, subdomain: string): Promise<Realm> {
  const stringId = subdomain === 'root' ? '' : subdomain.toLowerCase();
  const realm = await ctx.db.realm.findUnique({ where: { stringId } });
  if (!realm) throw new UsageError(`No organization with subdomain '${subdomain}'`);
  return realm;
}

/** A user named by email (within the organization) or by numeric ID. */
export async function findUser(ctx: AppContext, realm: Realm, who: string): Promise<User> {
  const user = /^\d+$/.test(who)
    ? await ctx.db.user.findFirst({ where: { realmId: realm.id, id: Number(who) } })
    : await ctx.db.user.findFirst({
        where: {
          realmId: realm.id,
          OR: [{ email: who.toLowerCase() }, { deliveryEmail: who.toLowerCase() }],
        },
      });
  if (!user) throw new UsageError(`No user '${who}' in organization '${realm.stringId || 'root'}'`);
  return user;
}
