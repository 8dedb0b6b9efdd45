import type { Config } from '../../core/config';
import type { Tx } from '../../db/client';
import { invitationFailed } from '../../core/errors';
import { at } from '../../core/at';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Zulip's daily invitation limit, per organization: refuses when `count` more invitations would
 * take those created in the last 24 hours past the organization's `max_invites` (the server's
 * default when unset). Locks the organization's row first, so two concurrent requests cannot both
 * slip under the limit; call it in the transaction that creates the invitations.
 */
export async function checkDailyInviteLimit(
  tx: Tx,
  config: Pick<Config, 'invitesDefaultRealmDailyMax'>,
  realmId: number,
  count: number,
): Promise<void> {
  const realms = await tx.$queryRaw<{ max_invites: number | null; now: Date }[]>`
    SELECT max_invites, now() AS now FROM realms WHERE id = ${realmId} FOR NO KEY UPDATE`;
  const locked = at(realms, 0);
  const limit = locked.max_invites ?? config.invitesDefaultRealmDailyMax;
  const recent = await tx.invitation.count({
    where: { realmId, createdAt: { gt: new Date(locked.now.getTime() - DAY_MS) } },
  });
  if (recent + count > limit) {
    throw invitationFailed(
      'To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.',
      [],
      false,
      { dailyLimitReached: true },
    );
  }
}
