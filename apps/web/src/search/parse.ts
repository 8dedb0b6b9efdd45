/**
 * Zulip's search language: `operator:operand` terms (`channel:`, `topic:`, `sender:`, `dm:`,
 * `has:`, `is:` and their older names), `-` to negate one, quotes for operands with spaces, and
 * the remaining words as a full-text search. Pure: names are resolved to IDs by the caller.
 */
export interface Term {
  operator: string;
  operand: string;
  negated: boolean;
}

/** Older spellings Zulip still accepts, and what they mean now. */
const ALIASES: Record<string, string> = {
  stream: 'channel',
  from: 'sender',
  'pm-with': 'dm',
  subject: 'topic',
  streams: 'channels',
  'group-pm-with': 'dm-including',
};

export const OPERATORS = [
  'channel',
  'topic',
  'sender',
  'dm',
  'dm-including',
  'has',
  'is',
  'channels',
  'near',
  'id',
] as const;

export const HAS_OPERANDS = ['link', 'image', 'attachment', 'reaction'] as const;
export const IS_OPERANDS = [
  'starred',
  'mentioned',
  'unread',
  'dm',
  'resolved',
  'followed',
  'alerted',
] as const;

/** The query split into words; a quoted run is one word (its quotes kept, for operands). */
export function tokenize(query: string): string[] {
  const words: string[] = [];
  const re = /(?:[^\s"]+|"[^"]*"?)+/g;
  for (const match of query.matchAll(re)) words.push(match[0]);
  return words;
}

/** A word as written `operator:operand` (`-` first negates it), or null for a plain word. */
export function splitOperator(
  word: string,
): { negated: boolean; operator: string; operand: string } | null {
  const [, sign, operator, operand] = /^(-?)([a-z-]+):(.*)$/i.exec(word) ?? [];
  if (operator === undefined || operand === undefined) return null;
  return { negated: sign === '-', operator, operand };
}

const unquote = (text: string) => text.replace(/"/g, '').replace(/\+/g, ' ');

export function parseQuery(query: string): Term[] {
  const terms: Term[] = [];
  const words: string[] = [];
  for (const token of tokenize(query)) {
    const word = splitOperator(token);
    const operator = word && (ALIASES[word.operator.toLowerCase()] ?? word.operator.toLowerCase());
    if (word && operator && (OPERATORS as readonly string[]).includes(operator) && word.operand) {
      const operand = unquote(word.operand);
      terms.push({
        operator,
        operand: operator === 'is' && operand === 'private' ? 'dm' : operand,
        negated: word.negated,
      });
    } else words.push(unquote(token));
  }
  if (words.length) terms.push({ operator: 'search', operand: words.join(' '), negated: false });
  return terms;
}

/** An operand written back into a query, quoted when it holds a space. */
export function quoteOperand(operand: string): string {
  return /\s/.test(operand) ? `"${operand}"` : operand;
}

export function unparse(terms: Term[]): string {
  return terms
    .map((t) =>
      t.operator === 'search'
        ? t.operand
        : `${t.negated ? '-' : ''}${t.operator}:${quoteOperand(t.operand)}`,
    )
    .join(' ');
}
