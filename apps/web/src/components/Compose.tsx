import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api';
import { emojiChar, emojiMatches } from '../emoji';
import { safeHtml } from '../html';
import { store } from '../store';
import type { Narrow } from '../types';

interface Suggestion {
  label: string;
  insert: string;
}

/** What the word before the caret asks to complete: `@name` or `:emoji`. */
function suggestionsFor(text: string, caret: number): { start: number; list: Suggestion[] } | null {
  const before = text.slice(0, caret);
  const mention = /(^|\s)@([\p{L}\p{N}_.-]*)$/u.exec(before);
  if (mention) {
    const q = mention[2].toLowerCase();
    const list = [...store.users.values()]
      .filter((u) => u.is_active !== false && u.full_name.toLowerCase().includes(q))
      .slice(0, 8)
      .map((u) => ({ label: u.full_name, insert: `@**${u.full_name}** ` }));
    return { start: caret - mention[2].length - 1, list };
  }
  const emoji = /(^|\s):([a-z0-9_+-]{2,})$/.exec(before);
  if (emoji) {
    const list = emojiMatches(emoji[2]).map(([name, code]) => ({
      label: `${emojiChar(code)} :${name}:`,
      insert: `:${name}: `,
    }));
    return { start: caret - emoji[2].length - 1, list };
  }
  return null;
}

/**
 * The compose box: a channel and topic (or the conversation's people), Markdown with a preview,
 * @-mention and emoji completion, files dropped in, typing notifications. Enter sends,
 * Shift+Enter adds a line, Esc cancels.
 */
export function Compose({ narrow }: { narrow: Narrow }) {
  const [text, setText] = useState('');
  const [streamId, setStreamId] = useState(narrow.kind === 'stream' ? narrow.streamId : 0);
  const [topic, setTopic] = useState(narrow.kind === 'stream' ? (narrow.topic ?? '') : '');
  const [preview, setPreview] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const [suggest, setSuggest] = useState<{ start: number; list: Suggestion[] } | null>(null);
  const [selected, setSelected] = useState(0);
  const box = useRef<HTMLTextAreaElement>(null);
  const typingSent = useRef(0);

  useEffect(() => {
    if (narrow.kind === 'stream') {
      setStreamId(narrow.streamId);
      setTopic(narrow.topic ?? '');
    }
    setPreview(null);
  }, [narrow]);

  const typingTarget = () =>
    narrow.kind === 'stream'
      ? { type: 'stream', stream_id: streamId, topic }
      : { type: 'direct', to: narrow.userIds.filter((id) => id !== store.me) };

  const typing = (op: 'start' | 'stop') => {
    if (op === 'start' && Date.now() - typingSent.current < 10_000) return;
    if (op === 'stop' && !typingSent.current) return;
    typingSent.current = op === 'start' ? Date.now() : 0;
    void call('POST', '/typing', { op, ...typingTarget() }).catch(() => undefined);
  };

  const cancel = () => {
    setText('');
    setPreview(null);
    setSuggest(null);
    typing('stop');
  };

  const send = async () => {
    if (!text.trim()) return;
    setError('');
    try {
      if (narrow.kind === 'stream') {
        await call('POST', '/messages', { type: 'stream', to: streamId, topic, content: text });
      } else {
        const to = narrow.userIds.filter((id) => id !== store.me);
        await call('POST', '/messages', {
          type: 'direct',
          to: to.length ? to : [store.me],
          content: text,
        });
      }
      typing('stop');
      setText('');
      setPreview(null);
    } catch (err) {
      setError((err as Error).message);
    }
  };

  const complete = (s: Suggestion) => {
    if (!suggest || !box.current) return;
    const { value, selectionStart: caret } = box.current;
    const next = value.slice(0, suggest.start) + s.insert + value.slice(caret);
    const at = suggest.start + s.insert.length;
    // The box and its caret change now, not on a later frame: keys typed right after the
    // completion must land after it, not at a caret a frame late moves back.
    box.current.value = next;
    box.current.setSelectionRange(at, at);
    setText(next);
    setSuggest(null);
  };

  const onInput = (e: Event) => {
    const el = e.currentTarget as HTMLTextAreaElement;
    setText(el.value);
    setSelected(0);
    const found = suggestionsFor(el.value, el.selectionStart);
    setSuggest(found && found.list.length ? found : null);
    if (el.value) typing('start');
    else typing('stop');
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (suggest) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const n = suggest.list.length;
        setSelected((selected + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
        return;
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        complete(suggest.list[selected]);
        return;
      }
      if (e.key === 'Escape') {
        setSuggest(null);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      void send();
    } else if (e.key === 'Escape') {
      cancel();
    }
  };

  const togglePreview = async () => {
    if (preview !== null) return setPreview(null);
    const { rendered } = await call<{ rendered: string }>('POST', '/messages/render', {
      content: text,
    });
    setPreview(rendered);
  };

  const upload = async (files: FileList) => {
    for (const file of Array.from(files)) {
      setStatus(`Uploading ${file.name}…`);
      const body = new FormData();
      body.append('file', file, file.name);
      try {
        const res = await call<{ url?: string; uri?: string }>(
          'POST',
          '/user_uploads',
          {},
          { body },
        );
        const link = `[${file.name}](${res.url ?? res.uri})`;
        setText((current) => (current ? `${current}\n${link}` : link));
        setStatus('');
      } catch (err) {
        setStatus('');
        setError((err as Error).message);
      }
    }
  };

  const place = store.typingPlace(
    narrow.kind === 'stream' ? { kind: 'stream', streamId, topic } : narrow,
  );
  const typists = store.typing.filter((t) => t.place === place && t.until > Date.now());
  const channels = [...store.subscriptions.values()].sort((a, b) => a.name.localeCompare(b.name));

  return (
    <section
      class="compose"
      aria-label="Compose"
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault();
        if (e.dataTransfer?.files.length) void upload(e.dataTransfer.files);
      }}
    >
      <p class="typing" aria-live="polite">
        {typists.length > 0 &&
          `${typists.map((t) => store.userName(t.userId)).join(', ')} is typing…`}
      </p>
      {narrow.kind === 'stream' ? (
        <div class="recipient">
          <select
            aria-label="Channel"
            value={streamId}
            onChange={(e) => setStreamId(Number((e.currentTarget as HTMLSelectElement).value))}
          >
            {channels.map((c) => (
              <option key={c.stream_id} value={c.stream_id}>
                # {c.name}
              </option>
            ))}
          </select>
          <input
            aria-label="Topic"
            placeholder="Topic"
            value={topic}
            maxLength={60}
            onInput={(e) => setTopic((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
      ) : (
        <div class="recipient">
          To:{' '}
          {narrow.userIds
            .filter((id) => id !== store.me)
            .map((id) => store.userName(id))
            .join(', ') || 'yourself'}
        </div>
      )}
      {preview !== null ? (
        <div
          class="preview content"
          aria-label="Preview"
          dangerouslySetInnerHTML={{ __html: safeHtml(preview) }}
        />
      ) : (
        <div class="input-wrap">
          <textarea
            ref={box}
            aria-label="Message"
            placeholder="Write a message — Enter sends, Shift+Enter for a new line"
            value={text}
            onInput={onInput}
            onKeyDown={onKeyDown}
            onBlur={() => typing('stop')}
          />
          {suggest && (
            <ul class="suggestions" role="listbox" aria-label="Suggestions">
              {suggest.list.map((s, i) => (
                <li
                  key={s.insert}
                  role="option"
                  aria-selected={i === selected}
                  onMouseDown={(e) => {
                    e.preventDefault();
                    complete(s);
                  }}
                >
                  {s.label}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {status && <p class="muted">{status}</p>}
      <div class="compose-actions">
        <label class="file-button">
          Attach
          <input
            type="file"
            class="visually-hidden"
            onChange={(e) => {
              const files = (e.currentTarget as HTMLInputElement).files;
              if (files?.length) void upload(files);
            }}
          />
        </label>
        <button class="secondary" onClick={() => void togglePreview()} disabled={!text}>
          {preview !== null ? 'Edit' : 'Preview'}
        </button>
        <button onClick={() => void send()} disabled={!text.trim()}>
          Send
        </button>
      </div>
    </section>
  );
}
