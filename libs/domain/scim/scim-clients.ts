import { createHash, randomBytes } from 'node:crypto';
import type { Realm, ScimClient } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { at } from '../../core/at';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Makes (or, for a name it already has, replaces) an organization's SCIM client and returns its
 * new bearer token, which is shown once: only its hash is kept, as for API keys. Zulip configures
 * the same thing in SCIM_CONFIG by subdomain.
 */
export async function issueScimToken(
  ctx: AppContext,
  input: { realm: Realm; name: string; nameFormattedIncluded: boolean },
): Promise<{ client: ScimClient; token: string }> {
  const token = `scim_${randomBytes(32).toString('base64url')}`;
  const tokenHash = hashToken(token);
  const client = await ctx.db.scimClient.upsert({
    where: { realmId_name: { realmId: input.realm.id, name: input.name } },
    create: {
      realmId: input.realm.id,
      name: input.name,
      tokenHash,
      nameFormattedIncluded: input.nameFormattedIncluded,
    },
    update: { tokenHash, nameFormattedIncluded: input.nameFormattedIncluded },
  });
  return { client, token };
}

/** The organization's client whose token `Authorization: Bearer <token>` presents, if any. */
export async function scimClientFor(
  ctx: AppContext,
  realm: Realm,
  authorization: string | undefined,
): Promise<ScimClient | null> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) return null;
  const client = await ctx.db.scimClient.findUnique({
    where: { tokenHash: hashToken(at(match, 1)) },
  });
  return client && client.realmId === realm.id ? client : null;
}

/** Takes an organization's SCIM client away (its token stops working at once). */
export async function revokeScimClient(ctx: AppContext, realm: Realm, name: string) {
  const { count } = await ctx.db.scimClient.deleteMany({ where: { realmId: realm.id, name } });
  return count > 0;
}
