import type { Realm, User } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import type { RealmExportRecord } from '../../protocol/events/realm-export';
import { realmExports } from './format-exports';
import { requireExportAdmin } from './request-export';

/** `GET /export/realm`. */
export async function listRealmExports(
  ctx: AppContext,
  input: { actor: User; realm: Realm },
): Promise<RealmExportRecord[]> {
  requireExportAdmin(input.actor);
  return realmExports(ctx.db, input.realm, ctx.config);
}
