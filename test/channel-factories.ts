import { randomBytes } from 'node:crypto';
import type { Stream, User } from '../generated/prisma/client';
import type { AppContext } from '../libs/core/context';
import { subscribe } from '../libs/domain/subscriptions/subscribe';
import type { TestRealm } from './factories';

/**
 * Creates a channel through the real subscribe action, with the owner as creator, subscribing
 * `subscribers` (default: the owner).
 */
export async function makeChannel(
  ctx: AppContext,
  org: TestRealm,
  options: {
    name?: string;
    inviteOnly?: boolean;
    subscribers?: User[];
    description?: string;
  } = {},
): Promise<Stream> {
  const name = options.name ?? `chan-${randomBytes(3).toString('hex')}`;
  const realm = await ctx.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
  await subscribe(ctx, {
    actor: org.owner.user,
    realm,
    subscriptions: [{ name, description: options.description }],
    principals: (options.subscribers ?? [org.owner.user]).map((u) => u.id),
    authorizationErrorsFatal: true,
    announce: false,
    inviteOnly: options.inviteOnly ?? false,
    isWebPublic: false,
    isDefaultStream: false,
    groupSettings: {},
  });
  return ctx.db.stream.findFirstOrThrow({ where: { realmId: realm.id, name } });
}

/**
 * Removes fields newer than the OpenAPI reference (feature level 247) from each object of a
 * response list, so the rest can be checked against the reference exactly.
 */
export function withoutNestedFields<T extends Record<string, unknown>>(
  body: T,
  listKey: string,
  fields: string[],
): T {
  const list = body[listKey];
  if (!Array.isArray(list)) return body;
  return {
    ...body,
    [listKey]: list.map((item: Record<string, unknown>) => {
      const copy = { ...item };
      for (const f of fields) delete copy[f];
      return copy;
    }),
  };
}

/** Channel fields added after feature level 247 (spec 2.2). */
export const NEWER_CHANNEL_FIELDS = [
  'is_archived',
  'creator_id',
  'is_recently_active',
  'can_add_subscribers_group',
  'can_administer_channel_group',
  'can_send_message_group',
  'can_subscribe_group',
];
