import { memo } from 'preact/compat';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api';
import { loadEmojiSheet, loadKatex } from '../emoji';
import { messageNodes } from '../html';
import { dmKey, messageDmKey } from '../narrow';
import { store } from '../store';
import type { Message, Narrow, Reaction } from '../types';
import { clockTime } from '../clock';
import { EditHistory, hasVisibleHistory } from './EditHistory';
import { Emoji, EmojiPicker } from './Emoji';
import { Popover } from './Popover';

/** An avatar if it is served by us (the CSP loads no image from elsewhere), else initials. */
function Avatar({ message }: { message: Message }) {
  const url = message.avatar_url ?? '';
  const ours = url.startsWith('/') && !url.startsWith('//');
  return ours ? (
    <img class="avatar" src={url} alt="" />
  ) : (
    <span class="avatar" aria-hidden="true">
      {message.sender_full_name.slice(0, 1)}
    </span>
  );
}

/**
 * The message's sanitized content, copied from the nodes made when it was first drawn: cloning
 * nodes costs less than parsing the HTML again each time the row scrolls into view.
 */
function Content({ message }: { message: Message }) {
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    el.replaceChildren(messageNodes(message).cloneNode(true));
    if (el.querySelector('span.emoji')) loadEmojiSheet();
    if (el.querySelector('.katex')) loadKatex();
  }, [message]);
  return <div class="content" ref={box} />;
}

/** The narrow a message's recipient bar links to. */
export function narrowOf(m: Message, me: number, withTopic = true): Narrow {
  if (m.type === 'stream')
    return { kind: 'stream', streamId: m.stream_id!, topic: withTopic ? m.subject : undefined };
  return { kind: 'dm', userIds: messageDmKey(m, me).split(',').map(Number) };
}

function RecipientBar({ message, me }: { message: Message; me: number }) {
  const go = (n: Narrow) => store.go(n);
  if (message.type === 'stream') {
    const sub = store.subscriptions.get(message.stream_id!);
    const name =
      sub?.name ??
      (typeof message.display_recipient === 'string' ? message.display_recipient : 'channel');
    return (
      <div class="recipient-bar" style={{ borderLeftColor: sub?.color ?? 'var(--border)' }}>
        <button class="link" onClick={() => go(narrowOf(message, me, false))}>
          #{name}
        </button>
        <span aria-hidden="true">›</span>
        <button class="link topic" onClick={() => go(narrowOf(message, me))}>
          {message.subject || 'general chat'}
        </button>
      </div>
    );
  }
  const key = messageDmKey(message, me);
  const names = key === String(me) ? 'You' : key.split(',').map((id) => store.userName(Number(id)));
  return (
    <div class="recipient-bar dm">
      <button class="link" onClick={() => go({ kind: 'dm', userIds: key.split(',').map(Number) })}>
        You and {Array.isArray(names) ? names.join(', ') : 'yourself'}
      </button>
    </div>
  );
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
        const r = list[0];
        return (
          <button
            key={r.emoji_code}
            class={mine ? 'reaction mine' : 'reaction'}
            aria-pressed={mine}
            title={`${names} reacted with :${r.emoji_name}:`}
            aria-label={`${r.emoji_name}: ${list.length}, ${names}`}
            onClick={() => void toggle(r, mine)}
          >
            <Emoji
              choice={{
                name: r.emoji_name,
                code: r.emoji_code,
                type: r.reaction_type === 'unicode_emoji' ? 'unicode_emoji' : 'realm_emoji',
              }}
            />{' '}
            {list.length}
          </button>
        );
      })}
    </div>
  );
}

/**
 * Edits a message in place: its text (one's own), and for a channel message its topic and
 * channel, moving the whole topic with it (`propagate_mode` `change_all`), as Zulip's editor.
 */
function Editor({ message, onDone }: { message: Message; onDone: () => void }) {
  const [source, setSource] = useState<string | null>(null);
  const [text, setText] = useState('');
  const [topic, setTopic] = useState(message.subject);
  const [channel, setChannel] = useState(message.stream_id ?? 0);
  const [error, setError] = useState('');
  const mine = message.sender_id === store.me;
  useEffect(() => {
    // The Markdown source, fetched once: the list holds only the rendered HTML.
    void call<{ message: { content: string } }>('GET', `/messages/${message.id}`, {
      apply_markdown: false,
    }).then(
      (r) => {
        setSource(r.message.content);
        setText(r.message.content);
      },
      (err: Error) => setError(err.message),
    );
  }, [message.id]);
  if (source === null) return <p class="muted">{error || 'Loading…'}</p>;
  const save = async () => {
    try {
      const changes: Record<string, string | number> = {};
      if (mine && text !== source) changes.content = text;
      if (
        message.type === 'stream' &&
        (topic !== message.subject || channel !== message.stream_id)
      ) {
        if (topic !== message.subject) changes.topic = topic;
        if (channel !== message.stream_id) changes.stream_id = channel;
        changes.propagate_mode = 'change_all';
      }
      if (Object.keys(changes).length) await call('PATCH', `/messages/${message.id}`, changes);
      onDone();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const channels = [...store.subscriptions.values()].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <div class="editor">
      {message.type === 'stream' && (
        <div class="editor-place">
          <select
            aria-label="Channel of this message"
            value={String(channel)}
            onChange={(e) => setChannel(Number((e.currentTarget as HTMLSelectElement).value))}
          >
            {channels.map((c) => (
              <option key={c.stream_id} value={c.stream_id}>
                # {c.name}
              </option>
            ))}
          </select>
          <input
            aria-label="Topic of this message"
            value={topic}
            maxLength={60}
            onInput={(e) => setTopic((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
      )}
      <textarea
        aria-label="Edit message"
        value={text}
        readOnly={!mine}
        autoFocus
        onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            onDone();
          }
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

/** The message's address, as Zulip's web app links to it. */
export function permalink(m: Message, me: number): string {
  const where =
    m.type === 'stream'
      ? `channel/${m.stream_id}/topic/${encodeURIComponent(m.subject)}`
      : `dm/${dmKey(messageDmKey(m, me).split(',').map(Number), me)}`;
  return `${location.origin}${location.pathname}#narrow/${where}/near/${m.id}`;
}

/** Message actions shared by the row's buttons and the keyboard. */
export const messageActions = {
  star: (m: Message) =>
    call('POST', '/messages/flags', {
      messages: [m.id],
      op: m.flags?.includes('starred') ? 'remove' : 'add',
      flag: 'starred',
    }),
  markUnread: (m: Message) =>
    call('POST', '/messages/flags', { messages: [m.id], op: 'remove', flag: 'read' }),
  /** Quotes the message into the compose box, as Zulip's "Quote and reply". */
  quote: async (m: Message) => {
    const { message } = await call<{ message: { content: string } }>('GET', `/messages/${m.id}`, {
      apply_markdown: false,
    });
    const fence = message.content.includes('```') ? '````' : '```';
    const text = `@_**${m.sender_full_name}|${m.sender_id}** [said](${permalink(m, store.me)}):\n${fence}quote\n${message.content}\n${fence}\n`;
    store.requestCompose(narrowOf(m, store.me), text);
  },
};

type Mode = 'view' | 'edit' | 'react' | 'menu' | 'confirm-delete' | 'history';

/** A message's mode set from outside (the keyboard: `e` edits, `:` reacts). */
export const rowModes = new Map<number, (mode: Mode) => void>();

/**
 * One message, with what precedes it in the list: a date line, a recipient bar, the sender's
 * line (left out when the same sender goes on). Memoised: a row draws again only when one of
 * its props changes, not whenever anything in the store does.
 */
export const MessageRow = memo(function MessageRow({
  message,
  me,
  day,
  recipientBar,
  showSender,
  unread,
  selected,
  h24,
}: {
  message: Message;
  /** The reader (0 until registered): their own messages can be edited and deleted. */
  me: number;
  day: string | null;
  recipientBar: boolean;
  showSender: boolean;
  unread: boolean;
  selected: boolean;
  /** The reader's time format: 24-hour, or 12-hour with AM and PM. */
  h24: boolean;
}) {
  const [mode, setMode] = useState<Mode>('view');
  const [copied, setCopied] = useState(false);
  const reactButton = useRef<HTMLButtonElement>(null);
  const menuButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    rowModes.set(message.id, setMode);
    return () => {
      rowModes.delete(message.id);
    };
  }, [message.id]);
  const mine = message.sender_id === me;
  const starred = !!message.flags?.includes('starred');
  const classes = ['message'];
  if (!showSender) classes.push('continued');
  if (unread) classes.push('is-unread');
  if (selected) classes.push('selected');
  const close = () => setMode('view');
  return (
    <div class="row" data-message-id={message.id}>
      {day && (
        <div class="date-line" role="separator" aria-label={day}>
          <span>{day}</span>
        </div>
      )}
      {recipientBar && <RecipientBar message={message} me={me} />}
      <article
        class={classes.join(' ')}
        data-message-id={message.id}
        aria-label={`Message from ${message.sender_full_name}${unread ? ', unread' : ''}`}
      >
        {showSender ? (
          <header>
            <Avatar message={message} />
            <button
              type="button"
              class="link sender"
              aria-haspopup="dialog"
              title={`${message.sender_full_name}'s profile`}
            >
              {message.sender_full_name}
            </button>
            <time dateTime={new Date(message.timestamp * 1000).toISOString()}>
              {clockTime(message.timestamp, h24)}
            </time>
          </header>
        ) : (
          <time class="side-time" dateTime={new Date(message.timestamp * 1000).toISOString()}>
            {clockTime(message.timestamp, h24)}
          </time>
        )}
        <span class="actions">
          {message.last_edit_timestamp && <span class="edited">(edited)</span>}
          <button
            class="icon"
            aria-label="Add reaction"
            aria-expanded={mode === 'react'}
            ref={reactButton}
            onClick={() => setMode(mode === 'react' ? 'view' : 'react')}
          >
            ☺
          </button>
          <button
            class={starred ? 'icon star starred' : 'icon star'}
            aria-label={starred ? 'Unstar message' : 'Star message'}
            aria-pressed={starred}
            onClick={() => void messageActions.star(message)}
          >
            {starred ? '★' : '☆'}
          </button>
          <button
            class="icon"
            aria-label="Message actions"
            aria-expanded={mode === 'menu'}
            ref={menuButton}
            onClick={() => setMode(mode === 'menu' ? 'view' : 'menu')}
          >
            ⋯
          </button>
        </span>
        {mode === 'menu' && (
          <Popover anchor={menuButton.current} onClose={close}>
            <div class="menu" role="menu" aria-label="Message actions">
              <button
                role="menuitem"
                onClick={() => {
                  close();
                  void messageActions.quote(message);
                }}
              >
                Quote and reply
              </button>
              <button
                role="menuitem"
                onClick={() => {
                  void navigator.clipboard
                    ?.writeText(permalink(message, me))
                    .then(() => setCopied(true));
                  history.replaceState(null, '', permalink(message, me));
                  close();
                }}
              >
                Copy link to message
              </button>
              <button
                role="menuitem"
                onClick={() => {
                  close();
                  void messageActions.markUnread(message);
                }}
              >
                Mark as unread from here
              </button>
              {(mine || message.type === 'stream') && (
                <button role="menuitem" onClick={() => setMode('edit')}>
                  {mine ? 'Edit message' : 'Move or rename topic'}
                </button>
              )}
              {hasVisibleHistory(message) && (
                <button role="menuitem" onClick={() => setMode('history')}>
                  View edit history
                </button>
              )}
              {mine && (
                <button role="menuitem" onClick={() => setMode('confirm-delete')}>
                  Delete message
                </button>
              )}
            </div>
          </Popover>
        )}
        {mode === 'history' && (
          <EditHistory message={message} opener={menuButton.current} onClose={close} />
        )}
        {copied && (
          <span class="visually-hidden" role="status">
            Link copied
          </span>
        )}
        {mode === 'edit' ? (
          <Editor message={message} onDone={close} />
        ) : (
          <Content message={message} />
        )}
        {mode === 'confirm-delete' && (
          <div class="confirm" role="alert">
            Delete this message?{' '}
            <button class="danger" onClick={() => void call('DELETE', `/messages/${message.id}`)}>
              Delete
            </button>
            <button class="secondary" onClick={close}>
              Cancel
            </button>
          </div>
        )}
        {message.reactions.length > 0 && <Reactions message={message} me={me} />}
        {mode === 'react' && (
          <Popover anchor={reactButton.current} onClose={close}>
            <EmojiPicker
              label="Add a reaction"
              onClose={close}
              onPick={(c) => {
                close();
                void call('POST', `/messages/${message.id}/reactions`, {
                  emoji_name: c.name,
                  emoji_code: c.code,
                  reaction_type: c.type,
                });
              }}
            />
          </Popover>
        )}
      </article>
    </div>
  );
});
