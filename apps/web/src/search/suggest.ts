import {
  HAS_OPERANDS,
  IS_OPERANDS,
  parseQuery,
  quoteOperand,
  splitOperator,
  tokenize,
  type Term,
} from './parse';

/** What suggestions are drawn from: the channels, topics and people the reader knows. */
export interface Directory {
  channels: { id: number; name: string }[];
  topics: (streamId: number) => string[];
  people: { id: number; name: string; email: string }[];
}

export interface Suggestion {
  /** The whole query once this suggestion is taken. */
  query: string;
  /** What the list shows. */
  label: string;
}

const OPERATOR_HINTS: [string, string][] = [
  ['channel:', 'channel: messages in a channel'],
  ['topic:', 'topic: messages in a topic'],
  ['sender:', 'sender: messages sent by a person'],
  ['dm:', 'dm: direct messages with a person'],
  ['has:', 'has: link, image, attachment or reaction'],
  ['is:', 'is: starred, mentioned, unread, dm, resolved'],
];

const IS_LABELS: Record<(typeof IS_OPERANDS)[number], string> = {
  starred: 'Starred messages',
  mentioned: 'Messages that mention you',
  unread: 'Unread messages',
  dm: 'Direct messages',
  resolved: 'Resolved topics',
  followed: 'Followed topics',
  alerted: 'Messages with alert words',
};

const matches = (text: string, typed: string) =>
  text
    .toLowerCase()
    .split(/\s+/)
    .some((w) => w.startsWith(typed)) || text.toLowerCase().startsWith(typed);

/**
 * Zulip-style suggestions for the word being typed (the query's last): operators, then channel
 * names, topics of the channel named before, and people; the query as typed comes first.
 */
export function suggest(query: string, dir: Directory, limit = 8): Suggestion[] {
  const tokens = tokenize(query);
  const endsWithSpace = /\s$/.test(query) || query === '';
  const last = endsWithSpace ? '' : (tokens[tokens.length - 1] ?? '');
  const head = endsWithSpace ? query : query.slice(0, query.length - last.length);
  const out: Suggestion[] = [];
  const add = (replacement: string, label: string) => {
    const full = `${head}${replacement}`;
    if (!out.some((s) => s.query === full)) out.push({ query: full, label });
  };
  const earlier = parseQuery(head);
  const channelOf = (terms: Term[]) => {
    const named = terms.find((t) => t.operator === 'channel' && !t.negated)?.operand;
    return named === undefined
      ? undefined
      : dir.channels.find(
          (c) => c.name.toLowerCase() === named.toLowerCase() || String(c.id) === named,
        );
  };

  if (query.trim()) add(last, `Search for ${query.trim()}`);
  const op = splitOperator(last);
  if (op) {
    const neg = op.negated ? '-' : '';
    const typed = op.operand.replace(/"/g, '').toLowerCase();
    const name = op.operator.toLowerCase();
    if (name === 'channel' || name === 'stream')
      for (const c of dir.channels)
        if (matches(c.name, typed))
          add(`${neg}channel:${quoteOperand(c.name)} `, `Channel #${c.name}`);
    if (name === 'topic') {
      const channel = channelOf(earlier);
      const topics = channel
        ? dir.topics(channel.id).map((t) => [channel, t] as const)
        : dir.channels.flatMap((c) => dir.topics(c.id).map((t) => [c, t] as const));
      for (const [c, topic] of topics)
        if (matches(topic, typed))
          add(`${neg}topic:${quoteOperand(topic)} `, `Topic ${topic} in #${c.name}`);
    }
    if (name === 'sender' || name === 'from' || name === 'dm' || name === 'pm-with') {
      const canonical = name === 'from' ? 'sender' : name === 'pm-with' ? 'dm' : name;
      for (const p of dir.people)
        if (matches(p.name, typed) || p.email.toLowerCase().startsWith(typed))
          add(
            `${neg}${canonical}:${p.email} `,
            canonical === 'sender' ? `Sent by ${p.name}` : `Direct messages with ${p.name}`,
          );
    }
    if (name === 'has')
      for (const value of HAS_OPERANDS)
        if (value.startsWith(typed)) add(`${neg}has:${value} `, `Messages with a ${value}`);
    if (name === 'is')
      for (const value of IS_OPERANDS)
        if (value.startsWith(typed)) add(`${neg}is:${value} `, IS_LABELS[value]);
  } else {
    const typed = last.replace(/^-/, '').toLowerCase();
    for (const [prefix, label] of OPERATOR_HINTS)
      if (prefix.startsWith(typed) || !typed) add(prefix, label);
    if (typed) {
      for (const c of dir.channels)
        if (matches(c.name, typed)) add(`channel:${quoteOperand(c.name)} `, `Channel #${c.name}`);
      for (const p of dir.people)
        if (matches(p.name, typed)) add(`sender:${p.email} `, `Sent by ${p.name}`);
      const channel = channelOf(earlier);
      if (channel)
        for (const topic of dir.topics(channel.id))
          if (matches(topic, typed))
            add(`topic:${quoteOperand(topic)} `, `Topic ${topic} in #${channel.name}`);
    }
  }
  return out.slice(0, limit);
}
