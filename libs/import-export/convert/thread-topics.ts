import { MAX_TOPIC_LENGTH, truncate } from './zulip-writer';

/**
 * Topic names for threads, as Zulip's Slack importer makes them: the thread's date and the
 * start of its first message, cut to 60 characters, with " (2)", " (3)"... when two threads
 * would get the same name.
 */
export class ThreadTopics {
  private readonly byThread = new Map<string, string>();
  private readonly counts = new Map<string, number>();

  /** The topic of thread `key`, named on first sight from `content` sent at `seconds`. */
  name(key: string, seconds: number, content: string): string {
    const known = this.byThread.get(key);
    if (known) return known;
    const date = new Date(seconds * 1000).toISOString().slice(0, 10);
    const base = `${date} ${content.replace(/\s+/g, ' ')}`.trim();
    const cut = truncate(base, MAX_TOPIC_LENGTH);
    const seen = this.counts.get(cut) ?? 0;
    this.counts.set(cut, seen + 1);
    const suffix = seen > 0 ? ` (${seen + 1})` : '';
    const topic = truncate(base, MAX_TOPIC_LENGTH - suffix.length) + suffix;
    this.byThread.set(key, topic);
    return topic;
  }
}
