import { createPortal } from 'preact/compat';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api';
import { clockTime } from '../clock';
import { safeHtml } from '../html';
import { store } from '../store';
import type { Message } from '../types';
import type { ApiMessageSnapshot } from '../../../../libs/protocol/records';
import { Dialog } from './Dialog';

/**
 * Whether the message menu offers its history, as Zulip's does: the message was edited or
 * moved, and the organization shows edit history (`message_edit_history_visibility_policy`: 1
 * everything, 2 moves only, 3 nothing).
 */
export function hasVisibleHistory(m: Message): boolean {
  const policy = Number(store.state.realm_message_edit_history_visibility_policy ?? 1);
  if (store.state.realm_allow_edit_history === false || policy === 3) return false;
  return policy === 2
    ? !!m.last_moved_timestamp
    : !!(m.last_edit_timestamp || m.last_moved_timestamp);
}

/** The server's diff spans (by class) and the element each becomes. */
const DIFF_MARKS: [string, string][] = [
  ['highlight_text_inserted', 'ins'],
  ['highlight_text_deleted', 'del'],
];

/**
 * A version's content: the server's diff for an edit (Zulip's `highlight_text_inserted` and
 * `highlight_text_deleted` spans, made `<ins>` and `<del>` here, which say so to screen readers
 * too), else the content as it was.
 */
function VersionContent({ html }: { html: string }) {
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    el.innerHTML = safeHtml(html);
    for (const [cls, tag] of DIFF_MARKS)
      for (const span of el.querySelectorAll(`span.${cls}`)) {
        const mark = document.createElement(tag);
        mark.append(...span.childNodes);
        span.replaceWith(mark);
      }
  }, [html]);
  return <div class="content" ref={box} />;
}

function VersionItem({ version, first }: { version: ApiMessageSnapshot; first: boolean }) {
  const who = version.user_id === null ? 'Someone' : store.userName(version.user_id);
  const what = first ? 'Posted by' : version.prev_content !== undefined ? 'Edited by' : 'Moved by';
  const when = new Date(version.timestamp * 1000);
  const channel = (id: number) => `#${store.subscriptions.get(id)?.name ?? `channel ${id}`}`;
  return (
    <li class="version">
      <p class="version-meta">
        <strong>
          {what} {who}
        </strong>{' '}
        <time dateTime={when.toISOString()}>
          {when.toLocaleDateString()} {clockTime(version.timestamp)}
        </time>
      </p>
      {version.prev_stream !== undefined && (
        <p class="version-move">
          Channel: {channel(version.prev_stream)} → {channel(version.stream)}
        </p>
      )}
      {version.prev_topic !== undefined && (
        <p class="version-move">
          Topic: {version.prev_topic || 'general chat'} → {version.topic || 'general chat'}
        </p>
      )}
      {(first || version.prev_content !== undefined) && (
        <VersionContent html={version.content_html_diff ?? version.rendered_content} />
      )}
    </li>
  );
}

/**
 * Zulip's "View edit history": every version of a message, oldest first, who changed it and
 * when, with the words inserted and deleted marked. A modal dialog: focus goes to Close, Esc or
 * a press outside closes it, and focus goes back to the `opener`.
 */
export function EditHistory({
  message,
  opener,
  onClose,
}: {
  message: Message;
  /** Where focus goes back to once closed (the message's menu button). */
  opener: HTMLElement | null;
  onClose: () => void;
}) {
  const [versions, setVersions] = useState<ApiMessageSnapshot[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    void call<{ message_history: ApiMessageSnapshot[] }>(
      'GET',
      `/messages/${message.id}/history`,
    ).then(
      (r) => setVersions(r.message_history),
      (err: Error) => setError(err.message),
    );
  }, [message.id, message.last_edit_timestamp, message.last_moved_timestamp]);
  // Drawn again as the store changes: names known once registered, a channel renamed.
  const [, redraw] = useState(0);
  useEffect(() => store.subscribe(() => redraw((n) => n + 1)), []);
  // Focus back to the menu's button once closed: once the render that closed it is done, and to
  // the message's button as it is then, since the list may have drawn the row anew meanwhile.
  useEffect(
    () => () => {
      setTimeout(() => {
        const live = document.querySelector<HTMLElement>(
          `.message[data-message-id="${message.id}"] button[aria-label="Message actions"]`,
        );
        (live ?? opener)?.focus({ preventScroll: true });
      });
    },
    [],
  );
  return createPortal(
    <Dialog class="dialog edit-history" labelledBy="edit-history-title" onClose={onClose}>
      <header>
        <h2 id="edit-history-title">Message edit history</h2>
        <button class="secondary" onClick={onClose}>
          Close
        </button>
      </header>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : versions ? (
        <ol class="versions">
          {versions.map((v, i) => (
            <VersionItem key={v.timestamp * 1000 + i} version={v} first={i === 0} />
          ))}
        </ol>
      ) : (
        <p class="muted">Loading…</p>
      )}
    </Dialog>,
    document.body,
  );
}
