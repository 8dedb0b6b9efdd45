import type { Realm, User } from '../../../../generated/prisma/client';
import { type ClientCapabilities } from '../../../protocol/queue';
import type { Tx } from '../../../db/client';
import type { AppContext } from '../../../core/context';
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
  /**
   * The `fetch_event_types` names that ask for this part: Zulip's names, and the event types
   * they stand for where those differ (`realm_user_groups` and `user_group`). Those that are
   * event types are also the events whose changes the part's state already shows.
   */
  eventTypes: readonly string[];
  /** Asked for only when every name is (Zulip sends `unread_msgs` for `message` with `update_message_flags`). */
  needsAll?: boolean;
  fetch(input: StateInput): Promise<Record<string, unknown>>;
}

/**
 * The names a registration asks state for: `fetch_event_types`, else `event_types`; null when
 * neither is given, which asks for everything.
 */
export function wantedTypes(
  params: Pick<QueueParams, 'fetch_event_types' | 'event_types'>,
): ReadonlySet<string> | null {
  const names = params.fetch_event_types ?? params.event_types ?? null;
  return names === null ? null : new Set(names);
}

/** Zulip's `want(name)`: does the registration ask for this name? */
export function wants(
  params: Pick<QueueParams, 'fetch_event_types' | 'event_types'>,
  name: string,
): boolean {
  const wanted = wantedTypes(params);
  return wanted === null || wanted.has(name);
}
