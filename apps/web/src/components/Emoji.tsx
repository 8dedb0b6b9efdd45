import { useEffect, useRef, useState } from 'preact/hooks';
import {
  QUICK_REACTIONS,
  emojiMatches,
  loadCatalog,
  loadEmojiSheet,
  type EmojiCatalog,
  type EmojiChoice,
} from '../emoji';
import { store } from '../store';

/** One emoji drawn from the sprite sheet (Unicode) or its image (custom). */
export function Emoji({ choice }: { choice: EmojiChoice }) {
  if (choice.type !== 'unicode_emoji') {
    const url = choice.url ?? store.customEmoji.get(choice.name)?.source_url;
    return <img class="emoji" src={url} alt={`:${choice.name}:`} />;
  }
  loadEmojiSheet();
  return (
    <span
      class={`emoji emoji-${choice.code}`}
      role="img"
      aria-label={choice.name.replace(/_/g, ' ')}
    >
      :{choice.name}:
    </span>
  );
}

interface EmojiSection {
  name: string;
  list: EmojiChoice[];
}

/** What the picker lists: a search's matches, or Popular, Custom and Unicode's categories. */
function pickerSections(query: string, catalog: EmojiCatalog | null): EmojiSection[] {
  if (query) return [{ name: 'Results', list: emojiMatches(query, 80) }];
  const custom: EmojiChoice[] = [...store.customEmoji.values()]
    .filter((e) => !e.deactivated)
    .map((e) => ({ name: e.name, code: e.id, type: 'realm_emoji', url: e.source_url }));
  const quick: EmojiChoice[] = QUICK_REACTIONS.flatMap((name) => {
    const code = store.emoji.get(name);
    return code ? [{ name, code, type: 'unicode_emoji' as const }] : [];
  });
  return [
    { name: 'Popular', list: quick },
    ...(custom.length ? [{ name: 'Custom', list: custom }] : []),
    ...(catalog ?? []).map((c) => ({
      name: c.name,
      list: c.emoji.map(([code, name]) => ({ name, code, type: 'unicode_emoji' as const })),
    })),
  ];
}

/** Each section, and where its first emoji is in the picker's one run of choices (the arrows'). */
function placeSections(sections: EmojiSection[]): { section: EmojiSection; first: number }[] {
  let next = 0;
  return sections.map((section) => {
    const first = next;
    next += section.list.length;
    return { section, first };
  });
}

/** One section of the picker; its buttons carry their place in the run as `data-i`. */
function PickerSection({
  section,
  first,
  active,
  onPick,
}: {
  section: EmojiSection;
  first: number;
  active: number;
  onPick: (choice: EmojiChoice) => void;
}) {
  return (
    <section aria-label={section.name}>
      <h3>{section.name}</h3>
      <div class="choices">
        {section.list.map((c, i) => {
          const at = first + i;
          return (
            <button
              key={`${section.name}-${c.name}`}
              type="button"
              data-i={at}
              class={at === active ? 'active' : undefined}
              title={`:${c.name}:`}
              aria-label={c.name}
              onClick={() => onPick(c)}
            >
              <Emoji choice={c} />
            </button>
          );
        })}
      </div>
    </section>
  );
}

/**
 * A full emoji picker: search by name, or browse Unicode's categories (and the organization's
 * own emoji); arrow keys move, Enter picks, Esc closes.
 */
export function EmojiPicker({
  onPick,
  onClose,
  label,
}: {
  onPick: (choice: EmojiChoice) => void;
  onClose: () => void;
  label: string;
}) {
  const [query, setQuery] = useState('');
  const [catalog, setCatalog] = useState<EmojiCatalog | null>(null);
  const [active, setActive] = useState(0);
  const grid = useRef<HTMLDivElement>(null);
  const search = useRef<HTMLInputElement>(null);
  useEffect(() => {
    search.current?.focus({ preventScroll: true });
    void loadCatalog().then(setCatalog);
  }, []);

  const sections = pickerSections(query, catalog);
  const flat = sections.flatMap((s) => s.list);
  const placed = placeSections(sections);

  const onKeyDown = (e: KeyboardEvent) => {
    const move = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 8, ArrowUp: -8 }[e.key];
    if (move !== undefined) {
      e.preventDefault();
      const next = Math.max(0, Math.min(flat.length - 1, active + move));
      setActive(next);
      grid.current?.querySelector(`[data-i="${next}"]`)?.scrollIntoView({ block: 'nearest' });
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (flat[active]) onPick(flat[active]);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onClose();
    }
  };

  return (
    <div class="emoji-picker" role="dialog" aria-label={label} onKeyDown={onKeyDown}>
      <input
        aria-label="Search emoji"
        placeholder="Search emoji"
        value={query}
        ref={search}
        onInput={(e) => {
          setQuery((e.currentTarget as HTMLInputElement).value);
          setActive(0);
        }}
      />
      <div class="emoji-grid" ref={grid}>
        {placed.map(({ section, first }) => (
          <PickerSection
            key={section.name}
            section={section}
            first={first}
            active={active}
            onPick={onPick}
          />
        ))}
        {query && !flat.length && <p class="muted">No emoji match.</p>}
      </div>
    </div>
  );
}
