import type { Realm, User } from '../../../../generated/prisma/client';
import type { ClientCapabilities } from '../../../events/types';
import type { Tx } from '../../../db/client';
import type { AppContext } from '../../context';
import type { QueueParams } from '../queue-params';

/** The state is read inside one repeatable-read transaction, so `db` is that transaction. */
export type SnapshotContext = Omit<AppContext, 'db'> & { db: Tx };

export interface StateInput {
  ctx: SnapshotContext;
  user: User;
  realm: Realm;
  params: QueueParams;
  capabilities: ClientCapabilities;
}

/**
 * One part of the `POST /register` snapshot: the state for the event types it names. Providers are
 * listed in ./index.ts; a helper adding an event type adds one module there.
 */
export interface StateProvider {
  /** Event types (as in fetch_event_types) whose initial state this provider returns. */
  eventTypes: readonly string[];
  fetch(input: StateInput): Promise<Record<string, unknown>>;
}
