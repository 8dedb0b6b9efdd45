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
    let at = root;
    // UTF-16 units, as the scan reads the message.
    for (let i = 0; i < word.length; i++) {
      const ch = word[i];
      let child = at.next.get(ch);
      if (!child) at.next.set(ch, (child = node()));
      at = child;
    }
    if (!at.ends.includes(word.length)) at.ends.push(word.length);
  }
  const queue: Node[] = [];
  for (const child of root.next.values()) {
    child.fail = root;
    queue.push(child);
  }
  for (let i = 0; i < queue.length; i++) {
    const current = queue[i];
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
  let at = root;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    while (at !== root && !at.next.has(ch)) at = at.fail!;
    at = at.next.get(ch) ?? root;
    for (const length of at.ends) {
      const start = i + 1 - length;
      const startOk = start === 0 || ALLOWED_BEFORE.has(text[start - 1]);
      const endOk = i + 1 === text.length || ALLOWED_AFTER.has(text[i + 1]);
      if (startOk && endOk) return true;
    }
  }
  return false;
}
