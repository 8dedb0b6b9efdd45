import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { store } from '../store';
import type { Narrow } from '../types';
import { apiTerms, type Lookup } from '../search/narrow';
import { parseQuery, unparse } from '../search/parse';
import { suggest, type Directory, type Suggestion } from '../search/suggest';
import { route } from './route';
import { viewState } from './state';

export function directory(): Directory {
  const channels = new Map<number, string>();
  for (const c of viewState.channels.values()) channels.set(c.stream_id, c.name);
  for (const s of store.subscriptions.values()) channels.set(s.stream_id, s.name);
  return {
    channels: [...channels]
      .map(([id, name]) => ({ id, name }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    topics: (id) => store.topics.get(id) ?? [],
    people: [...store.users.values()]
      .filter((u) => u.is_active !== false)
      .map((u) => ({ id: u.user_id, name: u.full_name, email: u.email }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}

function lookup(dir: Directory): Lookup {
  return {
    me: store.me,
    channelId: (name) =>
      /^\d+$/.test(name)
        ? Number(name)
        : dir.channels.find((c) => c.name.toLowerCase() === name.toLowerCase())?.id,
    userId: (who) => {
      const w = who.toLowerCase();
      return /^\d+$/.test(who)
        ? Number(who)
        : dir.people.find((p) => p.email.toLowerCase() === w || p.name.toLowerCase() === w)?.id;
    },
  };
}

/** The query a search narrow came from: as typed, or spelt again from its terms (a link). */
function queryOf(narrow: Extract<Narrow, { kind: 'search' }>): string {
  const spelt = (query: string) => {
    const n = searchNarrow(query);
    return n.kind === 'search' ? JSON.stringify(n.terms) : '';
  };
  if (route.query && spelt(route.query) === JSON.stringify(narrow.terms)) return route.query;
  const people = new Map([...store.users.values()].map((u) => [u.user_id, u.email]));
  const channels = new Map([...directory().channels].map((c) => [c.id, c.name]));
  return unparse(
    narrow.terms.map((t) => {
      const operand = t.operand;
      const text =
        t.operator === 'channel' && typeof operand === 'number'
          ? (channels.get(operand) ?? String(operand))
          : t.operator === 'sender' && typeof operand === 'number'
            ? (people.get(operand) ?? String(operand))
            : Array.isArray(operand)
              ? operand.map((id) => people.get(id) ?? id).join(',')
              : String(operand);
      return { operator: t.operator, operand: text, negated: !!t.negated };
    }),
  );
}

/** The narrow a search query asks for, in `GET /messages`'s terms. */
export function searchNarrow(query: string): Extract<Narrow, { kind: 'search' }> {
  return { kind: 'search', terms: apiTerms(parseQuery(query), lookup(directory())) };
}

/** A query's narrow: a channel, topic or conversation when it names only that, else a search. */
export function narrowOfQuery(query: string): Narrow {
  const search = searchNarrow(query);
  const [a, b, ...rest] = search.terms;
  if (rest.length || search.terms.some((t) => t.negated)) return search;
  if (a?.operator === 'channel' && typeof a.operand === 'number') {
    if (!b) return { kind: 'stream', streamId: a.operand };
    if (b.operator === 'topic')
      return { kind: 'stream', streamId: a.operand, topic: String(b.operand) };
  }
  if (a?.operator === 'dm' && Array.isArray(a.operand) && !b)
    return { kind: 'dm', userIds: a.operand };
  return search;
}

/**
 * The search box's state: its text (the shown search's query when one is shown), whether the
 * suggestions are open and which is active; `search` runs a query, `take` a suggestion.
 */
function useSearchBox(input: RefObject<HTMLInputElement | null>) {
  const narrow = store.narrow;
  const current =
    narrow?.kind === 'search' && location.hash.startsWith('#narrow') ? queryOf(narrow) : '';
  const [text, setText] = useState(current);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  useEffect(() => setText(current), [current]);
  const suggestions = open ? suggest(text, directory()) : [];
  const search = (query: string) => {
    setOpen(false);
    setActive(-1);
    setText(query.trim());
    if (!query.trim()) return;
    route.query = query.trim();
    store.go(narrowOfQuery(query));
  };
  const take = (query: string) => {
    // An operator or an operand still to complete stays in the box; a finished term searches.
    if (/:$/.test(query)) {
      setText(query);
      setActive(-1);
      input.current?.focus();
    } else search(query);
  };
  return { text, setText, open, setOpen, active, setActive, suggestions, search, take };
}

/** `/` typed outside a field focuses the search box, as in Zulip. */
function useSlashFocuses(input: RefObject<HTMLInputElement | null>): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey) return;
      if (target.closest('input, textarea, select, [contenteditable]')) return;
      e.preventDefault();
      input.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

/**
 * The search box of the top bar: Zulip's operators, with suggestions as one types (a combobox:
 * arrows move through them, Enter takes one or searches, Esc closes). `/` focuses it.
 */
export function SearchBar() {
  viewState.sync();
  const input = useRef<HTMLInputElement>(null);
  const { text, setText, open, setOpen, active, setActive, suggestions, search, take } =
    useSearchBox(input);
  useSlashFocuses(input);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' && suggestions.length) {
      e.preventDefault();
      setActive((active + 1) % suggestions.length);
    } else if (e.key === 'ArrowUp' && suggestions.length) {
      e.preventDefault();
      setActive(active <= 0 ? suggestions.length - 1 : active - 1);
    } else if (e.key === 'Escape') {
      if (open && suggestions.length) setOpen(false);
      else (e.currentTarget as HTMLInputElement).blur();
    } else if (e.key === 'Tab' && active >= 0 && suggestions[active]) {
      e.preventDefault();
      setText(suggestions[active].query);
      setActive(-1);
    }
  };
  return (
    <form
      class="search-bar"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        const chosen = suggestions[active];
        if (chosen) take(chosen.query);
        else search(text);
      }}
    >
      <input
        ref={input}
        type="search"
        role="combobox"
        list={undefined}
        aria-label="Search messages"
        aria-expanded={suggestions.length > 0}
        aria-controls="search-suggestions"
        aria-autocomplete="list"
        aria-activedescendant={active >= 0 ? `search-suggestion-${active}` : undefined}
        placeholder="Search"
        autocomplete="off"
        value={text}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onInput={(e) => {
          setText((e.currentTarget as HTMLInputElement).value);
          setOpen(true);
          setActive(-1);
        }}
        onKeyDown={onKeyDown}
      />
      {suggestions.length > 0 && (
        <SuggestionList suggestions={suggestions} active={active} onTake={take} />
      )}
    </form>
  );
}

/** The combobox's list: the active suggestion is marked, and a click takes one. */
function SuggestionList({
  suggestions,
  active,
  onTake,
}: {
  suggestions: Suggestion[];
  active: number;
  onTake: (query: string) => void;
}) {
  return (
    <ul class="search-suggestions" id="search-suggestions" role="listbox" aria-label="Suggestions">
      {suggestions.map((s, i) => (
        <li
          key={s.query}
          id={`search-suggestion-${i}`}
          role="option"
          aria-selected={i === active}
          class={i === active ? 'active' : undefined}
          // The box keeps the focus (and its list) through the click.
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => onTake(s.query)}
        >
          {s.label}
        </li>
      ))}
    </ul>
  );
}
