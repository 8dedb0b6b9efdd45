import { memo } from 'preact/compat';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api';
import { QUICK_REACTIONS, emojiChar, emojiMatches } from '../emoji';
import { messageNodes } from '../html';
import { store } from '../store';
import type { Message, Reaction } from '../types';

// One formatter for every row: toLocaleTimeString builds a new one on each call, which made it
// a sixth of the script time of drawing rows while scrolling.
const clock = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit' });
const time = (ts: number) => clock.format(ts * 1000);

/**
 * The message's sanitized content, copied from the nodes made when it was first drawn: cloning
 * nodes costs less than parsing the HTML again each time the row scrolls into view.
 */
function Content({ message }: { message: Message }) {
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    box.current?.replaceChildren(messageNodes(message).cloneNode(true));
  }, [message]);
  return <div class="content" ref={box} />;
}

function Reactions({ message, me }: { message: Message; me: number }) {
  const groups = new Map<string, Reaction[]>();
  for (const r of message.reactions)
    groups.set(r.emoji_code, [...(groups.get(r.emoji_code) ?? []), r]);
  const toggle = (r: Reaction, mine: boolean) =>
    call(mine ? 'DELETE' : 'POST', `/messages/${message.id}/reactions`, {
      emoji_name: r.emoji_name,
      emoji_code: r.emoji_code,
      reaction_type: r.reaction_type,
    });
  return (
    <div class="reactions">
      {[...groups.values()].map((list) => {
        const mine = list.some((r) => r.user_id === me);
        const names = list.map((r) => store.userName(r.user_id)).join(', ');
        return (
          <button
            key={list[0].emoji_code}
            class={mine ? 'reaction mine' : 'reaction'}
            aria-pressed={mine}
            title={`${names} reacted with :${list[0].emoji_name}:`}
            aria-label={`${list[0].emoji_name}: ${list.length}, ${names}`}
            onClick={() => void toggle(list[0], mine)}
          >
            {list[0].reaction_type === 'unicode_emoji'
              ? emojiChar(list[0].emoji_code)
              : `:${list[0].emoji_name}:`}{' '}
            {list.length}
          </button>
        );
      })}
    </div>
  );
}

function ReactionPicker({ message, onClose }: { message: Message; onClose: () => void }) {
  const [query, setQuery] = useState('');
  const choices = query
    ? emojiMatches(query, 12)
    : QUICK_REACTIONS.map((name): [string, string] => [name, store.emoji.get(name) ?? '']);
  const react = async (name: string) => {
    onClose();
    await call('POST', `/messages/${message.id}/reactions`, { emoji_name: name });
  };
  return (
    <div class="picker" role="dialog" aria-label="Add a reaction">
      <input
        aria-label="Search emoji"
        placeholder="Search emoji"
        value={query}
        autoFocus
        onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') onClose();
          if (e.key === 'Enter' && choices[0]) void react(choices[0][0]);
        }}
      />
      <div class="choices">
        {choices.map(([name, code]) => (
          <button key={name} title={`:${name}:`} aria-label={name} onClick={() => void react(name)}>
            {code ? emojiChar(code) : `:${name}:`}
          </button>
        ))}
      </div>
    </div>
  );
}

function Editor({ message, onDone }: { message: Message; onDone: () => void }) {
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    // The Markdown source, fetched once: the list holds only the rendered HTML.
    void call<{ message: { content: string } }>('GET', `/messages/${message.id}`, {
      apply_markdown: false,
    }).then(
      (r) => setText(r.message.content),
      (err: Error) => setError(err.message),
    );
  }, [message.id]);
  if (text === null) return <p class="muted">{error || 'Loading…'}</p>;
  const save = async () => {
    try {
      await call('PATCH', `/messages/${message.id}`, { content: text });
      onDone();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <div class="editor">
      <textarea
        aria-label="Edit message"
        value={text}
        autoFocus
        onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') onDone();
          if (e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault();
            void save();
          }
        }}
      />
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <button onClick={() => void save()}>Save</button>
      <button class="secondary" onClick={onDone}>
        Cancel
      </button>
    </div>
  );
}

/**
 * One message. Memoised: a row draws again only when its message (replaced by the store on any
 * change) or its topic label changes, not whenever anything in the store does.
 */
export const MessageRow = memo(function MessageRow({
  message,
  me,
  showTopic,
}: {
  message: Message;
  /** The reader (0 until registered): their own messages can be edited and deleted. */
  me: number;
  showTopic: boolean;
}) {
  const [mode, setMode] = useState<'view' | 'edit' | 'react' | 'confirm-delete'>('view');
  const mine = message.sender_id === me;
  return (
    <article
      class="message"
      data-message-id={message.id}
      aria-label={`Message from ${message.sender_full_name}`}
    >
      <header>
        <span class="avatar" aria-hidden="true">
          {message.sender_full_name.slice(0, 1)}
        </span>
        <strong class="sender">{message.sender_full_name}</strong>
        {showTopic && message.type === 'stream' && (
          <span class="topic-label">› {message.subject}</span>
        )}
        <time dateTime={new Date(message.timestamp * 1000).toISOString()}>
          {time(message.timestamp)}
        </time>
        {message.last_edit_timestamp && <span class="muted">(edited)</span>}
        <span class="actions">
          <button
            class="icon"
            aria-label="Add reaction"
            onClick={() => setMode(mode === 'react' ? 'view' : 'react')}
          >
            ☺
          </button>
          {mine && (
            <button class="icon" aria-label="Edit message" onClick={() => setMode('edit')}>
              ✎
            </button>
          )}
          {mine && (
            <button
              class="icon"
              aria-label="Delete message"
              onClick={() => setMode('confirm-delete')}
            >
              🗑
            </button>
          )}
        </span>
      </header>
      {mode === 'edit' ? (
        <Editor message={message} onDone={() => setMode('view')} />
      ) : (
        <Content message={message} />
      )}
      {mode === 'confirm-delete' && (
        <div class="confirm" role="alert">
          Delete this message?{' '}
          <button class="danger" onClick={() => void call('DELETE', `/messages/${message.id}`)}>
            Delete
          </button>
          <button class="secondary" onClick={() => setMode('view')}>
            Cancel
          </button>
        </div>
      )}
      {message.reactions.length > 0 && <Reactions message={message} me={me} />}
      {mode === 'react' && <ReactionPicker message={message} onClose={() => setMode('view')} />}
    </article>
  );
});
