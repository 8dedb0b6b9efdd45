import type { Realm } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { formatChannels, type ChannelDict } from './format-channel';

/** `GET /default_streams`. */
export async function listDefaultChannels(db: Db | Tx, realm: Realm): Promise<ChannelDict[]> {
  const rows = await db.defaultStream.findMany({
    where: { realmId: realm.id },
    include: { stream: true },
    orderBy: { streamId: 'asc' },
  });
  return formatChannels(
    db,
    rows.map((r) => r.stream),
  );
}
