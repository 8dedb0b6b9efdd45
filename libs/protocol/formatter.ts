import type { QueueSettings } from './queue';

/**
 * An event as clients receive it: the emitted event without `internal`, the part only the events
 * tier reads. Each event type declares its own `internal` fields, if it has any.
 */
export type ClientForm<E> = E extends unknown ? Omit<E, 'internal'> : never;

/** An event's fields but its `type`: what a builder takes (for each variant of a union). */
export type EventFields<E> = E extends unknown ? Omit<E, 'type'> : never;

export interface DeliveryContext {
  /** API email of a user, for the legacy settings events. */
  emailOf(userId: number): string | undefined;
  /** Whether the owner of the queue is a recipient (false: reached through all_public_streams). */
  isRecipient: boolean;
}

/** What a formatter may learn of the queue's owner: plain values, compared by their text. */
export type OwnerPart = string | number | boolean | null | undefined | readonly string[];

/**
 * How one event type reaches one queue. `format` sees only the settings listed in `reads` and
 * what `owner` extracted, so the two make the key under which queues share a result: queues
 * alike in both receive the same events, by construction.
 */
export interface FormatterSpec<
  E extends { type: string },
  C,
  K extends keyof QueueSettings,
  O extends readonly OwnerPart[],
> {
  reads: readonly K[];
  owner: (queue: QueueSettings, event: E, context: DeliveryContext) => O;
  format: (event: E, settings: Pick<QueueSettings, K>, owner: O) => C[];
}

export interface EventFormatter<E, C> {
  /** Equal keys (for one event) mean equal results. */
  key(event: E, queue: QueueSettings, context: DeliveryContext): string;
  format(event: E, queue: QueueSettings, context: DeliveryContext): C[];
}

/** Queues registered alike share their settings objects (QueueStore.settingsOf): each serialized once. */
const valueTexts = new WeakMap<object, string>();

/**
 * A value's JSON text, '' for undefined (which no JSON text is): distinct values get distinct
 * texts, and a `|` can only occur inside a quoted string, so joined texts never collide.
 */
function valueText(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  let text = valueTexts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    valueTexts.set(value, text);
  }
  return text;
}

export function defineFormatter<
  E extends { type: string },
  C,
  K extends keyof QueueSettings,
  O extends readonly OwnerPart[],
>(spec: FormatterSpec<E, C, K, O>): EventFormatter<E, C> {
  const settingsKeys = new WeakMap<QueueSettings, string>();
  const settingsKey = (queue: QueueSettings): string => {
    let key = settingsKeys.get(queue);
    if (key === undefined) {
      key = spec.reads.map((name) => valueText(queue[name])).join('|');
      settingsKeys.set(queue, key);
    }
    return key;
  };
  return {
    key(event, queue, context) {
      const owner = spec.owner(queue, event, context);
      let key = settingsKey(queue);
      for (const part of owner) key += `|${valueText(part)}`;
      return key;
    },
    format(event, queue, context) {
      return spec.format(event, queue, spec.owner(queue, event, context));
    },
  };
}

/** Whether a queue registered for these event types takes events of `type`. */
export function accepts(settings: Pick<QueueSettings, 'eventTypes'>, type: string): boolean {
  return settings.eventTypes === null || settings.eventTypes.includes(type);
}

const noOwner = (): [] => [];

/** An event type every queue that asked for it receives as emitted, less `internal`. */
export function plainFormatter<E extends { type: string; internal?: unknown }>(): EventFormatter<
  E,
  ClientForm<E>
> {
  return defineFormatter({
    reads: ['eventTypes'],
    owner: noOwner,
    format: (event: E, settings) => (accepts(settings, event.type) ? [clientForm(event)] : []),
  });
}

/** The event without its `internal` part. */
export function clientForm<E extends { type: string; internal?: unknown }>(
  event: E,
): ClientForm<E> {
  const { internal, ...client } = event;
  // TypeScript types the rest of a generic as Omit<E, 'internal'>, which for a union E is not
  // spread over its members; ClientForm<E> is the same thing member by member.
  return client as ClientForm<E>;
}
