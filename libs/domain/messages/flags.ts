/** UserMessage.flags bits (Zulip's UserMessage.flags, in the same order). */
export const Flag = {
  read: 1,
  starred: 2,
  collapsed: 4,
  mentioned: 8,
  stream_wildcard_mentioned: 16,
  topic_wildcard_mentioned: 32,
  has_alert_word: 64,
  historical: 128,
  is_private: 256,
  active_mobile_push_notification: 512,
} as const;

export type FlagName = keyof typeof Flag;

/** Flags a user may change directly with POST /messages/flags (spec 2.9). */
export const EDITABLE_FLAGS = ['read', 'starred', 'collapsed'] as const;
export type EditableFlag = (typeof EDITABLE_FLAGS)[number];

/** Flags that exist but only the server sets (refused with "Flag not editable"). */
export const NON_EDITABLE_FLAGS = [
  'mentioned',
  'stream_wildcard_mentioned',
  'topic_wildcard_mentioned',
  'wildcard_mentioned',
  'has_alert_word',
  'historical',
] as const;

/** Bits clients see in `flags`; is_private and the push bit stay internal, as in Zulip. */
const VISIBLE: FlagName[] = [
  'read',
  'starred',
  'collapsed',
  'mentioned',
  'stream_wildcard_mentioned',
  'topic_wildcard_mentioned',
  'has_alert_word',
  'historical',
];

/** The API list of flag names for a bitmask, with the deprecated `wildcard_mentioned` alias. */
export function flagNames(bits: number): string[] {
  const names: string[] = VISIBLE.filter((name) => (bits & Flag[name]) !== 0);
  if ((bits & (Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned)) !== 0) {
    names.push('wildcard_mentioned');
  }
  return names;
}
