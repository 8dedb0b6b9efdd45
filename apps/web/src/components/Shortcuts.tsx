import { useEffect, useRef } from 'preact/hooks';
import { at } from '../../../../libs/core/at';
import { call } from '../api';
import { markNarrowRead, store, type UnreadPlace } from '../store';
import type { Message, Narrow } from '../types';
import { moveSelection } from './MessageList';
import { messageActions, narrowOf } from './message/actions';
import { rowModes } from './MessageRow';

/** Zulip's reading and composing shortcuts that this client has, as its help lists them. */
export const SHORTCUTS: [string, string][] = [
  ['j / ↓', 'Next message'],
  ['k / ↑', 'Previous message'],
  ['End / G', 'Last message'],
  ['Home', 'First message'],
  ['n', 'Next unread topic'],
  ['p', 'Next unread direct message'],
  ['r / Enter', 'Reply to the selected message'],
  ['R', 'Reply to its sender only'],
  ['>', 'Quote and reply'],
  ['c', 'New topic in this channel'],
  ['x', 'New direct message'],
  ['s', 'Go to the selected message’s conversation'],
  ['S', 'Go to its channel'],
  ['Esc', 'Close; in the compose box, put the text away as a draft (with Undo)'],
  ['Ctrl+Enter', 'Send (with "Press Enter to send" on: Enter sends, Ctrl+Enter starts a line)'],
  ['*', 'Star or unstar the selected message'],
  ['+', 'Thumbs up on the selected message'],
  [':', 'React to the selected message'],
  ['e', 'Edit the selected message'],
  ['U', 'Mark as unread from the selected message'],
  ['Shift+A', 'Mark this conversation as read'],
  ['/', 'Search'],
  ['?', 'This help'],
];

const selectedMessage = (): Message | undefined =>
  store.view?.messages.find((m) => m.id === store.view?.selected);

/** The unread topic or conversation after the one in view, in the sidebar's order. */
export function nextUnread(kind: 'topic' | 'dm'): Narrow | null {
  const places = new Map<string, { place: UnreadPlace; first: number }>();
  for (const [id, place] of store.unread) {
    if ('dm' in place !== (kind === 'dm')) continue;
    const key = 'dm' in place ? `d${place.dm}` : `s${place.streamId}:${place.topic.toLowerCase()}`;
    const seen = places.get(key);
    if (!seen || id < seen.first) places.set(key, { place, first: id });
  }
  const name = (p: UnreadPlace) =>
    'dm' in p ? '' : (store.subscriptions.get(p.streamId)?.name ?? '').toLowerCase();
  const list = [...places.entries()].sort(([, a], [, b]) =>
    kind === 'dm'
      ? a.first - b.first
      : name(a.place).localeCompare(name(b.place)) || a.first - b.first,
  );
  if (!list.length) return null;
  const here = store.narrow;
  const hereKey =
    here?.kind === 'stream'
      ? `s${here.streamId}:${(here.topic ?? '').toLowerCase()}`
      : here?.kind === 'dm'
        ? `d${[...new Set(here.userIds)]
            .filter((id) => id !== store.me)
            .sort((a, b) => a - b)
            .join(',')}`
        : '';
  const current = list.findIndex(([key]) => key === hereKey);
  const [, next] = at(list, (current + 1) % list.length);
  if (current >= 0 && list.length === 1) return null;
  const p = next.place;
  return 'dm' in p
    ? { kind: 'dm', userIds: p.dm.split(',').map(Number) }
    : { kind: 'stream', streamId: p.streamId, topic: p.topic };
}

/** What a key does when pressed; the page's default for the key is prevented first. */
type Command = () => void;

/** Moving the selection through the list. */
function selectionCommand(key: string): Command | undefined {
  switch (key) {
    case 'j':
    case 'ArrowDown':
      return () => moveSelection(1);
    case 'k':
    case 'ArrowUp':
      return () => moveSelection(-1);
    case 'End':
    case 'G':
      return () => moveSelection('end');
    case 'Home':
      return () => moveSelection('start');
    case 'PageDown':
      return () => moveSelection(10);
    case 'PageUp':
      return () => moveSelection(-10);
  }
}

/** Opening the compose box; Enter on a button or link is left to it. */
function composeCommand(
  key: string,
  m: Message | undefined,
  target: HTMLElement,
): Command | undefined {
  switch (key) {
    case 'r':
    case 'Enter':
      if (target.closest('button, a')) return;
      return () => store.requestCompose(m ? narrowOf(m, store.me) : store.narrow);
    case 'R':
      return () => m && store.requestCompose({ kind: 'dm', userIds: [m.sender_id] });
    case '>':
      return () => m && void messageActions.quote(m);
    case 'c': {
      const n = store.narrow;
      const streamId =
        n?.kind === 'stream' ? n.streamId : m?.type === 'stream' ? m.stream_id! : undefined;
      return () =>
        store.requestCompose(
          streamId !== undefined ? { kind: 'stream', streamId, topic: '' } : null,
        );
    }
    case 'x':
      return () => store.requestCompose({ kind: 'dm', userIds: [] });
  }
}

/** Acting on the selected message (none when nothing is selected). */
function messageCommand(key: string, m: Message | undefined): Command | undefined {
  switch (key) {
    case 's':
      return () => m && store.go(narrowOf(m, store.me));
    case 'S':
      return () => m && store.go(narrowOf(m, store.me, false));
    case '*':
      return () => m && void messageActions.star(m);
    case '+':
      return () =>
        m &&
        void call('POST', `/messages/${m.id}/reactions`, { emoji_name: '+1' }).catch(() =>
          call('DELETE', `/messages/${m.id}/reactions`, { emoji_name: '+1' }),
        );
    case ':':
      return () => m && rowModes.get(m.id)?.('react');
    case 'e':
      return () => m && rowModes.get(m.id)?.('edit');
    case 'U':
      return () => m && void messageActions.markUnread(m);
  }
}

/** Going elsewhere on the page: the next unread place, search, help; reading a narrow. */
function pageCommand(key: string, showHelp: () => void): Command | undefined {
  switch (key) {
    case 'n':
    case 'p': {
      const next = nextUnread(key === 'n' ? 'topic' : 'dm');
      return () => next && store.go(next);
    }
    case 'A':
      return () => {
        const narrow = store.narrow;
        if (narrow) void markNarrowRead(narrow);
      };
    case '/':
      return () => document.querySelector<HTMLInputElement>('[role=search] input')?.focus();
    case '?':
      return showHelp;
  }
}

/** The page's keyboard commands, when no text field has the focus. */
export function useShortcuts(showHelp: () => void): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
      const target = e.target as HTMLElement;
      if (target.closest('input, textarea, select, [contenteditable], [role=dialog]')) return;
      const m = selectedMessage();
      const command =
        selectionCommand(e.key) ??
        composeCommand(e.key, m, target) ??
        messageCommand(e.key, m) ??
        pageCommand(e.key, showHelp);
      if (!command) return;
      e.preventDefault();
      command();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

/** The help overlay (`?`). */
export function Shortcuts({ onClose }: { onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    close.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' || e.key === '?') {
        e.preventDefault();
        onClose();
      }
    };
    document.addEventListener('keydown', onKey, true);
    return () => document.removeEventListener('keydown', onKey, true);
  }, []);
  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="shortcuts-title">
        <header>
          <h2 id="shortcuts-title">Keyboard shortcuts</h2>
          <button ref={close} class="secondary" onClick={onClose}>
            Close
          </button>
        </header>
        <table class="shortcuts">
          <tbody>
            {SHORTCUTS.map(([keys, what]) => (
              <tr key={keys}>
                <th scope="row">
                  <kbd>{keys}</kbd>
                </th>
                <td>{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
