import type { AppContext } from '../../../libs/core/context';
import { createRealm } from '../../../libs/domain/realms/create-realm';
import { realmUrl } from '../../../libs/domain/realms/realm-url';
import { parseFlags, requireFlag, optionalFlag } from '../args';

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
