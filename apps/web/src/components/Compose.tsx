import { useEffect, useRef, useState } from 'preact/hooks';
import { call, csrfToken } from '../api';
import { emojiMatches, type EmojiChoice } from '../emoji';
import { safeHtml } from '../html';
import { dmKey } from '../narrow';
import { store, type Draft } from '../store';
import type { Narrow } from '../types';
import { Emoji, EmojiPicker } from './Emoji';
import { enterAction, enterHint, EnterSendsToggle } from './EnterSends';

interface Suggestion {
  key: string;
  label: string;
  emoji?: EmojiChoice;
  insert: string;
}

/** Where a message goes: a channel's topic or some people. */
export type Target =
  { kind: 'stream'; streamId: number; topic: string } | { kind: 'dm'; userIds: number[] };

/** What the word before the caret asks to complete: `@name` or `:emoji`. */
function suggestionsFor(text: string, caret: number): { start: number; list: Suggestion[] } | null {
  const before = text.slice(0, caret);
  const mention = /(^|\s)@([\p{L}\p{N}_.-]*)$/u.exec(before);
  if (mention) {
    const q = mention[2].toLowerCase();
    const list = [...store.users.values()]
      .filter((u) => u.is_active !== false && u.full_name.toLowerCase().includes(q))
      .slice(0, 8)
      .map((u) => ({ key: `u${u.user_id}`, label: u.full_name, insert: `@**${u.full_name}** ` }));
    return { start: caret - mention[2].length - 1, list };
  }
  const emoji = /(^|\s):([a-z0-9_+-]{2,})$/.exec(before);
  if (emoji) {
    const list = emojiMatches(emoji[2]).map((c) => ({
      key: `e${c.name}`,
      label: `:${c.name}:`,
      emoji: c,
      insert: `:${c.name}: `,
    }));
    return { start: caret - emoji[2].length - 1, list };
  }
  return null;
}

function targetOf(narrow: Narrow | null, previous: Target | null): Target | null {
  if (narrow?.kind === 'stream')
    return { kind: 'stream', streamId: narrow.streamId, topic: narrow.topic ?? '' };
  if (narrow?.kind === 'dm') return { kind: 'dm', userIds: narrow.userIds };
  return previous;
}

const targetKey = (t: Target | null) =>
  !t
    ? ''
    : t.kind === 'stream'
      ? `s${t.streamId}:${t.topic.toLowerCase()}`
      : `d${dmKey(t.userIds, store.me)}`;

/** The server's draft for a target, if any (drafts are kept with `/drafts`). */
function draftFor(t: Target | null): Draft | undefined {
  if (!t) return undefined;
  const key = targetKey(t);
  for (const d of store.drafts.values()) {
    const dk =
      d.type === 'stream'
        ? `s${d.to[0]}:${d.topic.toLowerCase()}`
        : d.type === 'private'
          ? `d${dmKey(d.to, store.me)}`
          : '';
    if (dk === key) return d;
  }
  return undefined;
}

function draftOf(t: Target, content: string): Draft {
  return {
    type: t.kind === 'stream' ? 'stream' : 'private',
    to: t.kind === 'stream' ? [t.streamId] : t.userIds.filter((id) => id !== store.me),
    topic: t.kind === 'stream' ? t.topic : '',
    content,
    timestamp: Math.floor(Date.now() / 1000),
  };
}

async function writeDraft(t: Target, content: string): Promise<void> {
  const existing = draftFor(t);
  if (!content.trim()) {
    if (existing?.id) {
      store.drafts.delete(existing.id);
      await call('DELETE', `/drafts/${existing.id}`);
    }
    return;
  }
  if (existing?.content === content) return;
  const draft = draftOf(t, content);
  if (existing?.id) {
    store.drafts.set(existing.id, { ...draft, id: existing.id });
    await call('PATCH', `/drafts/${existing.id}`, { draft });
  } else {
    const { ids } = await call<{ ids: number[] }>('POST', '/drafts', { drafts: [draft] });
    store.drafts.set(ids[0], { ...draft, id: ids[0] });
  }
}

/** The draft writes in flight, one after another: a second never races the first's POST. */
let writes: Promise<void> = Promise.resolve();

/**
 * Saves what is typed as the target's draft on the server (`/drafts`): a reload, or another
 * device, finds it there. Empty text deletes the target's draft.
 */
function saveDraft(t: Target, content: string): Promise<void> {
  writes = writes.then(() => writeDraft(t, content)).catch(() => undefined);
  return writes;
}

/**
 * The page is going (a reload, a closed tab) with a save still waiting: sent with `keepalive`,
 * which outlives the page, where a queued write would not.
 */
function saveDraftOnExit(t: Target, content: string): void {
  const existing = draftFor(t);
  if (!content.trim() || existing?.content === content) return;
  const draft = draftOf(t, content);
  const form = new URLSearchParams(
    existing?.id ? { draft: JSON.stringify(draft) } : { drafts: JSON.stringify([draft]) },
  );
  void fetch(existing?.id ? `/json/drafts/${existing.id}` : '/json/drafts', {
    method: existing?.id ? 'PATCH' : 'POST',
    headers: { 'X-CSRFToken': csrfToken() },
    body: form,
    credentials: 'same-origin',
    keepalive: true,
  }).catch(() => undefined);
}

/** Uploads a file with progress (fetch reports none for request bodies). */
function uploadFile(file: File, onProgress: (fraction: number) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/json/user_uploads');
    xhr.setRequestHeader('X-CSRFToken', csrfToken());
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      try {
        const body = JSON.parse(xhr.responseText) as {
          result: string;
          msg?: string;
          url?: string;
          uri?: string;
        };
        if (xhr.status === 200 && body.result === 'success') resolve(body.url ?? body.uri ?? '');
        else reject(new Error(body.msg ?? `HTTP ${xhr.status}`));
      } catch {
        reject(new Error(`HTTP ${xhr.status}`));
      }
    };
    xhr.onerror = () => reject(new Error('The upload failed: no connection.'));
    const body = new FormData();
    body.append('file', file, file.name);
    xhr.send(body);
  });
}

function PeoplePicker({ ids, onChange }: { ids: number[]; onChange: (ids: number[]) => void }) {
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

/**
 * The compose box: a channel and topic (or the people of a direct message, one or several),
 * Markdown with a preview, @-mention and emoji completion and an emoji picker, files pasted,
 * dropped or attached (with progress), typing notifications, and drafts kept on the server.
 * Enter or Ctrl+Enter sends as the user's `enter_sends` says (on touch screens Enter starts a
 * line); Esc puts the text away as a draft, with Undo.
 */
export function Compose({ narrow }: { narrow: Narrow | null }) {
  const [target, setTarget] = useState<Target | null>(() => targetOf(narrow, null));
  const [text, setText] = useState('');
  const [preview, setPreview] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [uploads, setUploads] = useState<{ name: string; progress: number }[]>([]);
  const [suggest, setSuggest] = useState<{ start: number; list: Suggestion[] } | null>(null);
  const [selected, setSelected] = useState(0);
  const [picker, setPicker] = useState(false);
  const [undo, setUndo] = useState<{ target: Target | null; text: string } | null>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  const typingSent = useRef(0);
  const saveTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  /** Whether the box holds text typed since its draft was last saved or loaded. */
  const edited = useRef(false);
  const requestSeen = useRef(store.composeRequest.seq);
  const current = useRef({ target, text });
  current.current = { target, text };

  /**
   * Saves the text typed since the last save as the target's draft, now. Only typed text: a box
   * emptied by Esc or by sending leaves the draft as it is.
   */
  const flushDraft = () => {
    clearTimeout(saveTimer.current);
    const { target: t, text: body } = current.current;
    if (!edited.current || !t) return;
    edited.current = false;
    void saveDraft(t, body);
  };

  const switchTo = (next: Target | null, insert = '') => {
    flushDraft();
    setTarget(next);
    const draft = draftFor(next)?.content ?? '';
    const value = insert ? (draft ? `${draft}\n${insert}` : insert) : draft;
    edited.current = !!insert;
    setText(value);
    setPreview(null);
    setSuggest(null);
    if (box.current) box.current.value = value;
  };

  useEffect(() => {
    if (narrow?.kind === 'stream' || narrow?.kind === 'dm') switchTo(targetOf(narrow, target));
  }, [narrow && (narrow.kind === 'stream' || narrow.kind === 'dm') ? JSON.stringify(narrow) : '']);

  // Registered after the box showed (a linked conversation paints first): its draft, if any.
  useEffect(() => {
    if (!store.me || current.current.text) return;
    const draft = draftFor(current.current.target)?.content;
    if (!draft) return;
    setText(draft);
    if (box.current) box.current.value = draft;
  }, [store.me]);

  // Replies, quotes and new topics asked for elsewhere (the keyboard, a message's menu).
  const request = store.composeRequest;
  useEffect(() => {
    if (request.seq === requestSeen.current) return;
    requestSeen.current = request.seq;
    const next = request.target ? targetOf(request.target, target) : target;
    if (targetKey(next) !== targetKey(target) || request.text) {
      if (targetKey(next) === targetKey(target)) {
        const value = text ? `${text}\n${request.text}` : request.text;
        setBody(value);
        if (box.current) box.current.value = value;
      } else switchTo(next, request.text);
    }
    // The first thing left to fill in: the people, the topic, or the message.
    requestAnimationFrame(() => {
      const section = box.current?.closest('.compose');
      const first =
        next?.kind === 'dm' && !next.userIds.length
          ? section?.querySelector<HTMLInputElement>('input[aria-label="Add a person"]')
          : next?.kind === 'stream' && !next.topic && !request.text
            ? section?.querySelector<HTMLInputElement>('input[aria-label=Topic]')
            : null;
      if (first) return first.focus();
      const el = box.current;
      if (!el) return;
      el.focus();
      el.setSelectionRange(el.value.length, el.value.length);
    });
  }, [request.seq]);

  useEffect(() => {
    // Leaving the page with a save still waiting for its second: sent on the way out.
    const onExit = () => {
      const { target: t, text: body } = current.current;
      if (!edited.current || !t) return;
      clearTimeout(saveTimer.current);
      edited.current = false;
      saveDraftOnExit(t, body);
    };
    addEventListener('pagehide', onExit);
    return () => {
      removeEventListener('pagehide', onExit);
      flushDraft();
    };
  }, []);

  const typingTarget = () =>
    target?.kind === 'stream'
      ? { type: 'stream', stream_id: target.streamId, topic: target.topic }
      : { type: 'direct', to: (target?.userIds ?? []).filter((id) => id !== store.me) };

  const typing = (op: 'start' | 'stop') => {
    if (!target) return;
    if (op === 'start' && Date.now() - typingSent.current < 10_000) return;
    if (op === 'stop' && !typingSent.current) return;
    typingSent.current = op === 'start' ? Date.now() : 0;
    void call('POST', '/typing', { op, ...typingTarget() }).catch(() => undefined);
  };

  /** The text changed by the writer: saved as the draft a second after the last change. */
  const setBody = (value: string) => {
    setText(value);
    edited.current = true;
    clearTimeout(saveTimer.current);
    const t = target;
    if (t) {
      saveTimer.current = setTimeout(() => {
        edited.current = false;
        void saveDraft(t, value);
      }, 1000);
    }
  };

  /** Esc: the text goes to drafts and the box empties, with Undo. */
  const putAway = () => {
    if (text.trim()) {
      flushDraft();
      setUndo({ target, text });
    }
    edited.current = false;
    setText('');
    setPreview(null);
    setSuggest(null);
    typing('stop');
    box.current?.blur();
  };

  const send = async () => {
    const content = box.current?.value ?? text;
    if (!content.trim() || !target) return;
    setError('');
    // Emptied at once: what is typed while the message goes is the next message.
    clearTimeout(saveTimer.current);
    edited.current = false;
    setText('');
    if (box.current) box.current.value = '';
    try {
      if (target.kind === 'stream') {
        await call('POST', '/messages', {
          type: 'stream',
          to: target.streamId,
          topic: target.topic,
          content,
        });
      } else {
        const to = target.userIds.filter((id) => id !== store.me);
        await call('POST', '/messages', {
          type: 'direct',
          to: to.length ? to : [store.me],
          content,
        });
      }
      typing('stop');
      // Sent: the draft goes (after any save of it still on its way), unless the next message
      // is being written already.
      if (!box.current?.value.trim()) void saveDraft(target, '');
      setPreview(null);
      setUndo(null);
    } catch (err) {
      setError((err as Error).message);
      // Not sent: the text comes back, before anything typed since.
      const now = box.current?.value ?? '';
      const back = now ? `${content}\n${now}` : content;
      setBody(back);
      if (box.current) box.current.value = back;
    }
  };

  const insertAtCaret = (insert: string, start?: number) => {
    const el = box.current;
    const value = el?.value ?? text;
    const caret = el?.selectionStart ?? value.length;
    const from = start ?? caret;
    const next = value.slice(0, from) + insert + value.slice(caret);
    const at = from + insert.length;
    // The box and its caret change now, not on a later frame: keys typed right after the
    // completion must land after it, not at a caret a frame late moves back.
    if (el) {
      el.value = next;
      el.setSelectionRange(at, at);
    }
    setBody(next);
  };

  const complete = (s: Suggestion) => {
    if (!suggest) return;
    insertAtCaret(s.insert, suggest.start);
    setSuggest(null);
  };

  const onInput = (e: Event) => {
    const el = e.currentTarget as HTMLTextAreaElement;
    setBody(el.value);
    setUndo(null);
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
        e.stopPropagation();
        setSuggest(null);
        return;
      }
    }
    const enter = enterAction(e);
    if (enter) e.preventDefault();
    if (enter === 'send') void send();
    else if (enter === 'newline') insertAtCaret('\n');
    else if (e.key === 'Escape') {
      e.stopPropagation();
      putAway();
    }
  };

  const togglePreview = async () => {
    if (preview !== null) return setPreview(null);
    const { rendered } = await call<{ rendered: string }>('POST', '/messages/render', {
      content: text,
    });
    setPreview(rendered);
  };

  const upload = async (files: File[]) => {
    for (const file of files) {
      setUploads((u) => [...u, { name: file.name, progress: 0 }]);
      try {
        const url = await uploadFile(file, (progress) =>
          setUploads((u) => u.map((x) => (x.name === file.name ? { ...x, progress } : x))),
        );
        const link = `[${file.name}](${url})`;
        const value = box.current?.value ?? '';
        insertAtCaret(value && !value.endsWith('\n') ? `\n${link}` : link);
      } catch (err) {
        setError((err as Error).message);
      } finally {
        setUploads((u) => u.filter((x) => x.name !== file.name));
      }
    }
  };

  const place = target
    ? store.typingPlace(
        target.kind === 'stream'
          ? { kind: 'stream', streamId: target.streamId, topic: target.topic }
          : { kind: 'dm', userIds: target.userIds },
      )
    : '';
  const typists = store.typing.filter((t) => t.place === place && t.until > Date.now());
  const channels = [...store.subscriptions.values()].sort((a, b) => a.name.localeCompare(b.name));

  return (
    <section
      class="compose"
      aria-label="Compose"
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault();
        if (e.dataTransfer?.files.length) void upload(Array.from(e.dataTransfer.files));
      }}
    >
      <p class="typing" aria-live="polite">
        {typists.length > 0 &&
          `${typists.map((t) => store.userName(t.userId)).join(', ')} ${typists.length > 1 ? 'are' : 'is'} typing…`}
      </p>
      {undo && (
        <p class="undo" role="status">
          Draft saved.{' '}
          <button
            class="link"
            onClick={() => {
              // Back as it was put away: the server's draft already holds this text.
              if (targetKey(undo.target) !== targetKey(target)) switchTo(undo.target);
              edited.current = false;
              setText(undo.text);
              if (box.current) box.current.value = undo.text;
              setUndo(null);
              box.current?.focus();
            }}
          >
            Undo
          </button>
        </p>
      )}
      <div class="recipient">
        <select
          aria-label="Send to"
          value={
            target?.kind === 'stream' ? String(target.streamId) : target?.kind === 'dm' ? 'dm' : ''
          }
          onChange={(e) => {
            const v = (e.currentTarget as HTMLSelectElement).value;
            switchTo(
              v === 'dm'
                ? { kind: 'dm', userIds: [] }
                : {
                    kind: 'stream',
                    streamId: Number(v),
                    topic: target?.kind === 'stream' ? target.topic : '',
                  },
            );
          }}
        >
          {!target && <option value="">Choose…</option>}
          {channels.map((c) => (
            <option key={c.stream_id} value={c.stream_id}>
              # {c.name}
            </option>
          ))}
          <option value="dm">Direct message</option>
        </select>
        {target?.kind === 'stream' && (
          <input
            aria-label="Topic"
            placeholder="Topic"
            value={target.topic}
            maxLength={60}
            onInput={(e) =>
              setTarget({ ...target, topic: (e.currentTarget as HTMLInputElement).value })
            }
          />
        )}
        {target?.kind === 'dm' && (
          <PeoplePicker
            ids={target.userIds}
            onChange={(ids) => setTarget({ kind: 'dm', userIds: ids })}
          />
        )}
      </div>
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
            placeholder={enterHint()}
            value={text}
            onInput={onInput}
            onKeyDown={onKeyDown}
            onBlur={() => typing('stop')}
            onPaste={(e) => {
              const files = Array.from(e.clipboardData?.files ?? []);
              if (files.length) {
                e.preventDefault();
                void upload(files);
              }
            }}
          />
          {suggest && (
            <ul class="suggestions" role="listbox" aria-label="Suggestions">
              {suggest.list.map((s, i) => (
                <li
                  key={s.key}
                  role="option"
                  aria-selected={i === selected}
                  onMouseDown={(e) => {
                    e.preventDefault();
                    complete(s);
                  }}
                >
                  {s.emoji && <Emoji choice={s.emoji} />} {s.label}
                </li>
              ))}
            </ul>
          )}
          {picker && (
            <EmojiPicker
              label="Insert an emoji"
              onClose={() => setPicker(false)}
              onPick={(c) => {
                setPicker(false);
                insertAtCaret(`:${c.name}: `);
                box.current?.focus();
              }}
            />
          )}
        </div>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {uploads.map((u) => (
        <p class="upload" key={u.name}>
          Uploading {u.name}…{' '}
          <progress max={1} value={u.progress} aria-label={`Uploading ${u.name}`} />
        </p>
      ))}
      <div class="compose-actions">
        <label class="file-button">
          Attach
          <input
            type="file"
            multiple
            class="visually-hidden"
            onChange={(e) => {
              const files = (e.currentTarget as HTMLInputElement).files;
              if (files?.length) void upload(Array.from(files));
            }}
          />
        </label>
        <button
          class="secondary"
          type="button"
          aria-label="Insert emoji"
          aria-expanded={picker}
          onClick={() => setPicker(!picker)}
        >
          ☺
        </button>
        <button class="secondary" onClick={() => void togglePreview()} disabled={!text}>
          {preview !== null ? 'Edit' : 'Preview'}
        </button>
        <button onClick={() => void send()} disabled={!text.trim() || !target}>
          Send
        </button>
        <EnterSendsToggle />
      </div>
    </section>
  );
}
