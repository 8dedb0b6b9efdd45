import { at } from '../core/at';

/** Characters allowed right before / after an alert word (Zulip's AlertWordNotificationProcessor). */
const ALLOWED_BEFORE = new Set([' ', '\n', '(', '"', '.', ',', "'", ';', '[', '*', '`', '>']);
const ALLOWED_AFTER = new Set([' ', '\n', ')', '?', ':', '.', ',', "'", ';', ']', '!', '*', '`']);

interface Node {
  next: Map<string, Node>;
  fail: Node | null;
  /** Lengths of the words that end here, this node's own and those reached by failure links. */
  ends: number[];
}

const node = (): Node => ({ next: new Map(), fail: null, ends: [] });

/**
 * An Aho-Corasick automaton over a user's words, as Zulip matches alert words: built in time
 * proportional to the words' length and run in one pass over the message, whatever the words.
 */
function buildAutomaton(words: string[]): Node {
  const root = node();
  for (const word of words) {
    let state = root;
    // UTF-16 units, as the scan reads the message.
    for (let i = 0; i < word.length; i++) {
      const ch = at(word, i);
      let child = state.next.get(ch);
      if (!child) state.next.set(ch, (child = node()));
      state = child;
    }
    if (!state.ends.includes(word.length)) state.ends.push(word.length);
  }
  const queue: Node[] = [];
  for (const child of root.next.values()) {
    child.fail = root;
    queue.push(child);
  }
  // Breadth first: the iterator also visits the children pushed while it runs.
  for (const current of queue) {
    for (const [ch, child] of current.next) {
      let fail = current.fail;
      while (fail && !fail.next.has(ch)) fail = fail.fail;
      child.fail = fail?.next.get(ch) ?? root;
      child.ends.push(...child.fail.ends.filter((len) => !child.ends.includes(len)));
      queue.push(child);
    }
  }
  return root;
}

// One automaton per word list, reused across messages; bounded so many lists cannot grow it.
const CACHE_LIMIT = 5000;
const automata = new Map<string, Node | null>();

function automatonFor(words: string[]): Node | null {
  const key = words.join('\u0000');
  let root = automata.get(key);
  if (root !== undefined) return root;
  const lowered = words.map((w) => w.toLowerCase()).filter((w) => w !== '');
  root = lowered.length ? buildAutomaton(lowered) : null;
  if (automata.size >= CACHE_LIMIT) automata.clear();
  automata.set(key, root);
  return root;
}

/**
 * Zulip's alert-word match on the raw message text: case-insensitive, and the word must be
 * bounded by the start/end of the text or by one of a few punctuation characters.
 */
export function findAlertWords(content: string, words: string[]): boolean {
  const root = automatonFor(words);
  if (!root) return false;
  const text = content.toLowerCase();
  let state = root;
  for (let i = 0; i < text.length; i++) {
    const ch = at(text, i);
    while (state !== root && !state.next.has(ch)) state = state.fail!;
    state = state.next.get(ch) ?? root;
    for (const length of state.ends) {
      const start = i + 1 - length;
      const before = text[start - 1];
      const after = text[i + 1];
      const startOk = before === undefined || ALLOWED_BEFORE.has(before);
      const endOk = after === undefined || ALLOWED_AFTER.has(after);
      if (startOk && endOk) return true;
    }
  }
  return false;
}
