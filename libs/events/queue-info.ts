import type { ClientEvent } from '../protocol/event-catalogue';
import type { QueueSettings } from '../protocol/queue';

/** Everything about a queue; stored as a Redis hash so any events replica can serve it. */
export interface QueueInfo extends QueueSettings {
  lastAccess: number;
  /** What `POST /register` read the initial state from; see `RegistrationSnapshot`. */
  snapshot?: RegistrationSnapshot;
}

/**
 * The database snapshot (`pg_current_snapshot()` as text) a registration read its initial state
 * from, and the event types that state covers.
 */
export interface RegistrationSnapshot {
  snapshot: string;
  eventTypes: string[];
}

/** A client event with its queue-assigned id. */
export type QueuedEvent = ClientEvent & { id: number };
