import type { ClientEvent } from '../protocol/event-catalogue';
import type { QueuedEvent } from './queue-info';

/** An event a wake-up carried: the event, the transaction that wrote it, its JSON as stored. */
export interface CarriedEvent {
  event: ClientEvent;
  xid: string;
  json: string;
}

/** A stored event's JSON (no id) with its queue id added, as `{ ...event, id }` serializes. */
const withId = (json: string, id: number): string =>
  json === '{}' ? `{"id":${id}}` : `${json.slice(0, -1)},"id":${id}}`;

/**
 * A poll's answer: its events, and their JSON array for the answer's body. A message to a big
 * channel answers thousands of waiting polls with one event, which their wake-up carried as the
 * text the queues stored: each answer splices that text with its own id rather than copying the
 * event into an object of its own and serializing it again (5,000 answers per process and
 * message). The objects are made only for a caller that asks for them.
 */
export class PolledEvents {
  private constructor(
    private listed: QueuedEvent[] | null,
    private readonly carried: CarriedEvent[],
    private readonly firstId: number,
  ) {}

  /** Events read from the queue. */
  static read(events: QueuedEvent[]): PolledEvents {
    return new PolledEvents(events, [], 0);
  }

  /** Events a wake-up carried, numbered from `firstId`. */
  static carried(firstId: number, events: CarriedEvent[]): PolledEvents {
    return new PolledEvents(null, events, firstId);
  }

  get events(): QueuedEvent[] {
    this.listed ??= this.carried.map(({ event }, i) => ({ ...event, id: this.firstId + i }));
    return this.listed;
  }

  get count(): number {
    return this.listed ? this.listed.length : this.carried.length;
  }

  /** `this.events` as a JSON array. */
  get json(): string {
    if (this.listed) return JSON.stringify(this.listed);
    let json = '[';
    for (let i = 0; i < this.carried.length; i++) {
      if (i) json += ',';
      json += withId(this.carried[i].json, this.firstId + i);
    }
    return `${json}]`;
  }
}
