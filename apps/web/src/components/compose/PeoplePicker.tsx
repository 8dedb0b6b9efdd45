import { useState } from 'preact/hooks';
import { store } from '../../store';

/** The people of a direct message as chips, and a field that adds one by name. */
export function PeoplePicker({
  ids,
  onChange,
}: {
  ids: number[];
  onChange: (ids: number[]) => void;
}) {
  const [query, setQuery] = useState('');
  const others = ids.filter((id) => id !== store.me);
  const matches = query
    ? [...store.users.values()]
        .filter(
          (u) =>
            u.is_active !== false &&
            !others.includes(u.user_id) &&
            u.full_name.toLowerCase().includes(query.toLowerCase()),
        )
        .slice(0, 6)
    : [];
  return (
    <div class="people-picker">
      <span>To:</span>
      {others.map((id) => (
        <span class="chip" key={id}>
          {store.userName(id)}
          <button
            class="icon"
            type="button"
            aria-label={`Remove ${store.userName(id)}`}
            onClick={() => onChange(others.filter((x) => x !== id))}
          >
            ×
          </button>
        </span>
      ))}
      <span class="input-wrap">
        <input
          aria-label="Add a person"
          placeholder={others.length ? 'Add another person' : 'Add a person'}
          value={query}
          onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && matches[0]) {
              e.preventDefault();
              onChange([...others, matches[0].user_id]);
              setQuery('');
            }
          }}
        />
        {matches.length > 0 && (
          <ul class="suggestions" role="listbox" aria-label="People">
            {matches.map((u, i) => (
              <li
                key={u.user_id}
                role="option"
                aria-selected={i === 0}
                onMouseDown={(e) => {
                  e.preventDefault();
                  onChange([...others, u.user_id]);
                  setQuery('');
                }}
              >
                {u.full_name}
              </li>
            ))}
          </ul>
        )}
      </span>
    </div>
  );
}
