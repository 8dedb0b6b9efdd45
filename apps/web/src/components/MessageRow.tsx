import type { Ref } from 'preact';
import { memo } from 'preact/compat';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api';
import { clockTime } from '../clock';
import { loadEmojiSheet, loadKatex } from '../emoji';
import { messageNodes } from '../html';
import { messageDmKey } from '../narrow';
import { store } from '../store';
import type { Message, Narrow, Reaction } from '../types';
import { EditHistory } from './EditHistory';
import { Emoji, EmojiPicker } from './Emoji';
import { MessageEditor } from './message/MessageEditor';
import { MessageMenu } from './message/MessageMenu';
import { messageActions, narrowOf } from './message/actions';
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
  const groups = new Map<string, [Reaction, ...Reaction[]]>();
  for (const r of message.reactions) {
    const group = groups.get(r.emoji_code);
    if (group) group.push(r);
    else groups.set(r.emoji_code, [r]);
  }
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
        const [r] = list;
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

type Mode = 'view' | 'edit' | 'react' | 'menu' | 'confirm-delete' | 'history';

/** A message's mode set from outside (the keyboard: `e` edits, `:` reacts). */
export const rowModes = new Map<number, (mode: Mode) => void>();

/** The row's mode, which the keyboard can set too (through `rowModes`) while the row is drawn. */
function useRowMode(messageId: number) {
  const [mode, setMode] = useState<Mode>('view');
  useEffect(() => {
    rowModes.set(messageId, setMode);
    return () => {
      rowModes.delete(messageId);
    };
  }, [messageId]);
  return [mode, setMode] as const;
}

/** The sender's line (avatar, name, time), or only the time beside a continued message. */
function SenderLine({
  message,
  showSender,
  h24,
}: {
  message: Message;
  showSender: boolean;
  h24: boolean;
}) {
  const dateTime = new Date(message.timestamp * 1000).toISOString();
  if (!showSender)
    return (
      <time class="side-time" dateTime={dateTime}>
        {clockTime(message.timestamp, h24)}
      </time>
    );
  return (
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
      <time dateTime={dateTime}>{clockTime(message.timestamp, h24)}</time>
    </header>
  );
}

/** The row's buttons: react, star, and the menu; each of the two popups toggles its mode. */
function RowButtons({
  message,
  mode,
  reactButton,
  menuButton,
  onMode,
}: {
  message: Message;
  mode: Mode;
  reactButton: Ref<HTMLButtonElement>;
  menuButton: Ref<HTMLButtonElement>;
  onMode: (mode: Mode) => void;
}) {
  const starred = !!message.flags?.includes('starred');
  return (
    <span class="actions">
      {message.last_edit_timestamp && <span class="edited">(edited)</span>}
      <button
        class="icon"
        aria-label="Add reaction"
        aria-expanded={mode === 'react'}
        ref={reactButton}
        onClick={() => onMode(mode === 'react' ? 'view' : 'react')}
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
        onClick={() => onMode(mode === 'menu' ? 'view' : 'menu')}
      >
        ⋯
      </button>
    </span>
  );
}

function DeleteConfirm({ message, onCancel }: { message: Message; onCancel: () => void }) {
  return (
    <div class="confirm" role="alert">
      Delete this message?{' '}
      <button class="danger" onClick={() => void call('DELETE', `/messages/${message.id}`)}>
        Delete
      </button>
      <button class="secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

/** The emoji picker of the row's "Add reaction" button: a pick reacts and closes it. */
function ReactionPicker({
  message,
  anchor,
  onClose,
}: {
  message: Message;
  anchor: HTMLElement | null;
  onClose: () => void;
}) {
  return (
    <Popover anchor={anchor} onClose={onClose}>
      <EmojiPicker
        label="Add a reaction"
        onClose={onClose}
        onPick={(c) => {
          onClose();
          void call('POST', `/messages/${message.id}/reactions`, {
            emoji_name: c.name,
            emoji_code: c.code,
            reaction_type: c.type,
          });
        }}
      />
    </Popover>
  );
}

interface RowProps {
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
}

/**
 * One message, with what precedes it in the list: a date line, a recipient bar, the sender's
 * line (left out when the same sender goes on). Memoised: a row draws again only when one of
 * its props changes, not whenever anything in the store does.
 */
export const MessageRow = memo(function MessageRow(props: RowProps) {
  const { message, me, day, recipientBar, showSender, unread, selected, h24 } = props;
  const [mode, setMode] = useRowMode(message.id);
  const [copied, setCopied] = useState(false);
  const reactButton = useRef<HTMLButtonElement>(null);
  const menuButton = useRef<HTMLButtonElement>(null);
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
        <SenderLine message={message} showSender={showSender} h24={h24} />
        <RowButtons
          message={message}
          mode={mode}
          reactButton={reactButton}
          menuButton={menuButton}
          onMode={setMode}
        />
        {mode === 'menu' && (
          <MessageMenu
            message={message}
            me={me}
            anchor={menuButton.current}
            onClose={close}
            onCopied={() => setCopied(true)}
            onEdit={() => setMode('edit')}
            onHistory={() => setMode('history')}
            onDelete={() => setMode('confirm-delete')}
          />
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
          <MessageEditor message={message} onDone={close} />
        ) : (
          <Content message={message} />
        )}
        {mode === 'confirm-delete' && <DeleteConfirm message={message} onCancel={close} />}
        {message.reactions.length > 0 && <Reactions message={message} me={me} />}
        {mode === 'react' && (
          <ReactionPicker message={message} anchor={reactButton.current} onClose={close} />
        )}
      </article>
    </div>
  );
});
