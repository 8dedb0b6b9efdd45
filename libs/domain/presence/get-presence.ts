import { Prisma } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { badRequest } from '../../core/errors';
import { checkAccess, Permission, requireAccess } from '../permissions/access';
import {
  legacyPresence,
  modernPresence,
  OFFLINE_THRESHOLD_SECONDS,
  unixSeconds,
  type LegacyPresence,
  type ModernPresence,
  type PresenceRow,
} from './format-presence';

export const DEFAULT_HISTORY_LIMIT_DAYS = 14;

/** Who asks: guests restricted by can_access_all_users_group see only the users they can access. */
export type PresenceViewer = { id: number; realmId: number; role: number };

export interface PresenceQuery {
  viewer: PresenceViewer;
  /** Only rows changed after this presence_last_update_id; null or <= 0: everything recent. */
  lastUpdateId: number | null;
  historyLimitDays: number;
  now: Date;
}

interface Row extends PresenceRow {
  lastUpdateId: bigint;
}

/**
 * Presence of the organization's active people connected within the history window that the
 * viewer can access. Invisible users are not filtered out: their row was made to read as offline
 * when they turned presence off, and must reach clients that fetch only changed rows.
 */
async function presenceRows(db: Db | Tx, query: PresenceQuery): Promise<Row[]> {
  const { realmId } = query.viewer;
  const realm = await db.realm.findUnique({
    where: { id: realmId },
    select: { presenceDisabled: true },
  });
  if (!realm || realm.presenceDisabled) return [];
  const since = query.lastUpdateId !== null && query.lastUpdateId > 0 ? query.lastUpdateId : null;
  // A zero-day history asks for no data; the caller's own row, just written at `now`, included.
  if (since === null && query.historyLimitDays === 0) return [];
  const cutoff = new Date(query.now.getTime() - query.historyLimitDays * 86_400_000);
  const rows = await db.$queryRaw<Row[]>(Prisma.sql`
    SELECT u.id AS "userId", u.email, u.date_joined AS "dateJoined",
           p.last_active_time AS "lastActiveTime", p.last_connected_time AS "lastConnectedTime",
           p.last_update_id AS "lastUpdateId"
    FROM user_presences p JOIN users u ON u.id = p.user_id
    WHERE p.realm_id = ${realmId} AND u.is_active AND NOT u.is_bot
      AND ${
        since !== null
          ? Prisma.sql`p.last_update_id > ${since}`
          : Prisma.sql`p.last_connected_time >= ${cutoff}`
      }
    ORDER BY u.id`);
  // The rows are of active people of the viewer's organization, none a bot: handed over as such.
  const readable = await checkAccess(db, {
    auth: { user: query.viewer },
    permission: Permission.UserRead,
    ids: rows.map((row) => row.userId),
    users: rows.map((row) => ({ id: row.userId, isBot: false, realmId })),
  });
  return rows.filter((row) => readable.has(row.userId));
}

export interface PresenceResponse {
  presences: Record<string, ModernPresence | LegacyPresence>;
  server_timestamp: number;
  presence_last_update_id: number;
}

/** The presence data of `POST /users/me/presence`, `GET /realm/presence` and `POST /register`. */
export async function realmPresence(
  db: Db | Tx,
  query: PresenceQuery & { modern: boolean },
): Promise<PresenceResponse> {
  const rows = await presenceRows(db, query);
  const presences: PresenceResponse['presences'] = {};
  let maxId = query.lastUpdateId ?? -1;
  for (const row of rows) {
    if (query.modern) presences[String(row.userId)] = modernPresence(row);
    else presences[row.email] = legacyPresence(row);
    maxId = Math.max(maxId, Number(row.lastUpdateId));
  }
  return {
    presences,
    server_timestamp: query.now.getTime() / 1000,
    presence_last_update_id: maxId,
  };
}

export interface UserPresenceEntry {
  timestamp: number;
  status: 'active' | 'idle' | 'offline';
}

/** `GET /users/{user_id_or_email}/presence`. */
export async function userPresence(
  db: Db,
  {
    viewer,
    userId,
    label,
    now,
  }: { viewer: PresenceViewer; userId: number; label: string; now: Date },
): Promise<Record<'website' | 'aggregated', UserPresenceEntry>> {
  const user = await db.user.findFirst({
    where: { id: userId, realmId: viewer.realmId },
    include: { presence: true, realm: { select: { presenceDisabled: true } } },
  });
  if (!user) throw badRequest('No such user');
  if (user.isBot) throw badRequest('Presence is not supported for bot users.');
  await requireAccess(db, {
    auth: { user: viewer },
    permission: Permission.UserRead,
    ids: [user.id],
  });
  if (!user.presence || !user.presenceEnabled || !user.isActive || user.realm.presenceDisabled) {
    throw badRequest(`No presence data for ${label}`);
  }
  const legacy = legacyPresence({
    userId: user.id,
    email: user.email,
    dateJoined: user.dateJoined,
    lastActiveTime: user.presence.lastActiveTime,
    lastConnectedTime: user.presence.lastConnectedTime,
  });
  const website: UserPresenceEntry = {
    timestamp: legacy.website.timestamp,
    status: legacy.website.status,
  };
  const aggregated: UserPresenceEntry = { ...website };
  if (unixSeconds(now) - aggregated.timestamp > OFFLINE_THRESHOLD_SECONDS) {
    aggregated.status = 'offline';
  }
  return { website, aggregated };
}
