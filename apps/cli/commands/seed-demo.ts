import type { AppContext } from '../../../libs/core/context';
import { insertChannel } from '../../../libs/domain/channels/insert-channel';
import { systemGroupIds } from '../../../libs/domain/groups/system-groups';
import { createRealm } from '../../../libs/domain/realms/create-realm';
import { realmUrl } from '../../../libs/domain/realms/realm-url';
import { insertSubscriptions } from '../../../libs/domain/subscriptions/insert-subscriptions';
import { createUser } from '../../../libs/domain/users/create-user';
import { isPrivateChannel } from '../../../libs/domain/permissions/channel-kinds';
import { isRealmAdmin } from '../../../libs/domain/permissions/roles';
import { Role, type RoleCode } from '../../../libs/domain/users/roles';
import { inTransaction } from '../../../libs/events/outbox';
import { optionalFlag, parseFlags } from '../args';

const PEOPLE: { fullName: string; local: string; role: RoleCode }[] = [
  { fullName: 'Aaron Admin', local: 'aaron', role: Role.ADMINISTRATOR },
  { fullName: 'Maya Moderator', local: 'maya', role: Role.MODERATOR },
  { fullName: 'Cordelia Member', local: 'cordelia', role: Role.MEMBER },
  { fullName: 'Hamlet Member', local: 'hamlet', role: Role.MEMBER },
  { fullName: 'Gus Guest', local: 'gus', role: Role.GUEST },
];

/** A demo organization with a few people and channels, for trying clients against. */
export async function seedDemoCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['subdomain', 'password', 'domain']);
  const subdomain = optionalFlag(flags, 'subdomain') ?? 'demo';
  const password = optionalFlag(flags, 'password') ?? 'demo-password';
  const domain = optionalFlag(flags, 'domain') ?? 'example.com';
  const created = await createRealm(ctx, {
    stringId: subdomain,
    name: 'Demo Organization',
    owner: { email: `olivia@${domain}`, fullName: 'Olivia Owner', password },
  });
  const users = [
    { ...created.owner, role: Role.OWNER as RoleCode },
    ...(await Promise.all(
      PEOPLE.map(async (p) => ({
        ...(await createUser(ctx, {
          realm: created.realm,
          email: `${p.local}@${domain}`,
          fullName: p.fullName,
          role: p.role,
          password,
        })),
        role: p.role,
      })),
    )),
  ];
  const channels = await inTransaction(ctx, async (tx) => {
    const groups = await systemGroupIds(tx, created.realm.id);
    const made = [];
    for (const spec of [
      { name: 'design', description: 'Mockups and critique', inviteOnly: false },
      { name: 'engineering', description: 'Builds, reviews and incidents', inviteOnly: false },
      { name: 'leadership', description: 'Private planning', inviteOnly: true },
    ]) {
      const stream = await insertChannel(tx, groups, {
        realmId: created.realm.id,
        name: spec.name,
        description: spec.description,
        renderedDescription: `<p>${spec.description}</p>`,
        creatorId: created.owner.user.id,
        inviteOnly: spec.inviteOnly,
      });
      const members = users.filter((u) => !isPrivateChannel(spec) || isRealmAdmin(u));
      await insertSubscriptions(
        tx,
        members.map((u) => ({ userId: u.user.id, recipientId: stream.recipientId! })),
      );
      made.push({ id: stream.id, name: stream.name, invite_only: stream.inviteOnly });
    }
    return made;
  });
  return {
    realm: { id: created.realm.id, subdomain, url: realmUrl(subdomain, ctx.config) },
    password,
    users: users.map((u) => ({
      id: u.user.id,
      email: u.user.email,
      role: u.role,
      api_key: u.apiKey,
    })),
    channels,
    id: created.owner.user.id,
    email: created.owner.user.email,
    api_key: created.owner.apiKey,
  };
}
