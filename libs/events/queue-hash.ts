import {
  DEFAULT_CAPABILITIES,
  type ClientCapabilities,
  type QueueNarrowTerm,
  type QueueSettings,
} from '../protocol/queue';
import type { QueueInfo, RegistrationSnapshot } from './queue-info';

/**
 * How a queue is written in Redis (the store, queue-store.ts, says what each field is for): its
 * hash, its entry in the partition's settings index, and the mark of the last domain-stream entry
 * it holds.
 */

/** A new queue's hash: its settings as strings, no event handed out yet. */
export function queueHashFields(
  info: Omit<QueueInfo, 'snapshot'>,
): Record<string, string | number> {
  return {
    user: info.userId,
    realm: info.realmId,
    event_types: JSON.stringify(info.eventTypes),
    narrow: JSON.stringify(info.narrow),
    all_public_streams: info.allPublicStreams ? '1' : '0',
    apply_markdown: info.applyMarkdown ? '1' : '0',
    client_gravatar: info.clientGravatar ? '1' : '0',
    slim_presence: info.slimPresence ? '1' : '0',
    capabilities: JSON.stringify(info.capabilities),
    client: info.client,
    last_access: info.lastAccess,
    last_id: -1,
    first_id: 0,
  };
}

/**
 * A domain-stream entry id (`<ms>-<seq>`) as a queue's mark: fixed width, so that marks compare as
 * strings in the order of their entries.
 */
export const markOf = (entryId: string): string => {
  const [ms, seq] = entryId.split('-');
  return `${ms.padStart(15, '0')}-${(seq ?? '0').padStart(20, '0')}`;
};

/** The settings shared by queues registered alike: all of QueueSettings but the ids. */
export type SharedSettings = Omit<QueueSettings, 'id' | 'userId' | 'realmId'>;

/**
 * A queue's entry in its partition's settings index: `<user id> <realm id> <settings JSON>`, the
 * JSON the same text for every queue registered alike.
 */
export function settingsText(info: Omit<QueueSettings, 'id'>): string {
  const shared: SharedSettings = {
    eventTypes: info.eventTypes,
    narrow: info.narrow,
    allPublicStreams: info.allPublicStreams,
    applyMarkdown: info.applyMarkdown,
    clientGravatar: info.clientGravatar,
    slimPresence: info.slimPresence,
    capabilities: info.capabilities,
    client: info.client,
  };
  return `${info.userId} ${info.realmId} ${JSON.stringify(shared)}`;
}

/** A settings-index entry's owner and its settings JSON, unparsed. */
export function splitSettingsText(text: string): { userId: number; realmId: number; json: string } {
  const user = text.indexOf(' ');
  const realm = text.indexOf(' ', user + 1);
  return {
    userId: Number(text.slice(0, user)),
    realmId: Number(text.slice(user + 1, realm)),
    json: text.slice(realm + 1),
  };
}

/** A queue's settings from its settings-index entry; `shared` parses each distinct JSON once. */
export function parseSettingsText(
  id: string,
  text: string,
  shared: Map<string, SharedSettings>,
): QueueSettings {
  const { userId, realmId, json } = splitSettingsText(text);
  let settings = shared.get(json);
  if (!settings) {
    const parsed = JSON.parse(json) as SharedSettings;
    settings = { ...parsed, capabilities: { ...DEFAULT_CAPABILITIES, ...parsed.capabilities } };
    shared.set(json, settings);
  }
  return { id, userId, realmId, ...settings };
}

/** A queue's settings from its hash; null when the queue is gone. */
export function parseQueue(id: string, hash: Record<string, string>): QueueInfo | null {
  if (!hash || !hash.user) return null;
  return {
    id,
    userId: Number(hash.user),
    realmId: Number(hash.realm),
    eventTypes: JSON.parse(hash.event_types) as string[] | null,
    narrow: JSON.parse(hash.narrow) as QueueNarrowTerm[],
    allPublicStreams: hash.all_public_streams === '1',
    applyMarkdown: hash.apply_markdown === '1',
    clientGravatar: hash.client_gravatar === '1',
    slimPresence: hash.slim_presence === '1',
    capabilities: {
      ...DEFAULT_CAPABILITIES,
      ...(JSON.parse(hash.capabilities) as Partial<ClientCapabilities>),
    },
    client: hash.client ?? '',
    lastAccess: Number(hash.last_access),
    ...(hash.snapshot ? { snapshot: JSON.parse(hash.snapshot) as RegistrationSnapshot } : {}),
  };
}
