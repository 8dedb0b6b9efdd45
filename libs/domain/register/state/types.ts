import type { Realm, User } from '../../../../generated/prisma/client';
import type { ClientCapabilities } from '../../../events/types';
import type { AppContext } from '../../context';
import type { QueueParams } from '../queue-params';

export interface StateInput {
  ctx: AppContext;
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
