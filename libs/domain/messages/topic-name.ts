import type { Realm } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import { EMPTY_TOPIC_FALLBACK_NAME } from '../../protocol/topics';
import { MAX_TOPIC_LENGTH } from '../length-limits';

/** The legacy placeholder clients send for "no topic" (read as the empty topic since FL 370). */
export const NO_TOPIC = '(no topic)';
/** Zulip's prefix for a resolved topic. */
export const RESOLVED_TOPIC_PREFIX = '✔ ';

export const TopicsPolicy = { ALLOW_EMPTY: 2, DISABLE_EMPTY: 3 } as const;

export function emptyTopicDisplayName(_realm: Pick<Realm, 'id'>): string {
  return EMPTY_TOPIC_FALLBACK_NAME;
}

/** Topic as the API shows it: clients without `empty_topic_name` see the display name for ''. */
export function displayTopic(topic: string, realm: Pick<Realm, 'id'>, allowEmpty: boolean): string {
  return topic === '' && !allowEmpty ? emptyTopicDisplayName(realm) : topic;
}

/**
 * Validates and normalizes a topic for a channel message, as Zulip's `check_stream_topic` does:
 * trims whitespace, rejects control characters and over-long names, reads `(no topic)` and the
 * empty-topic display name as '', and refuses '' where the organization requires topics.
 */
export function normalizeTopic(raw: string | undefined, realm: Realm): string {
  let topic = (raw ?? '').trim();
  const bad = firstInvalidCharacter(topic);
  if (bad >= 0) throw badRequest(`Invalid character in topic, at position ${bad + 1}!`);
  if ([...topic].length > MAX_TOPIC_LENGTH) {
    // Zulip's truncate_topic: cut to the limit, ending with "...".
    topic = [...topic].slice(0, MAX_TOPIC_LENGTH - 3).join('') + '...';
  }
  if (topic === NO_TOPIC || topic === emptyTopicDisplayName(realm)) topic = '';
  if (
    topic === '' &&
    (realm.mandatoryTopics || realm.topicsPolicy === TopicsPolicy.DISABLE_EMPTY)
  ) {
    throw badRequest('Topics are required in this organization.');
  }
  return topic;
}

/** Zulip refuses control, surrogate and unassigned characters (categories Cc, Cs, Cn). */
function firstInvalidCharacter(topic: string): number {
  return [...topic].findIndex((c) => /[\p{Cc}\p{Cs}\p{Cn}]/u.test(c));
}
