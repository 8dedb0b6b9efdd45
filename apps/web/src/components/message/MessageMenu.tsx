import { hasVisibleHistory } from '../EditHistory';
import { Popover } from '../Popover';
import type { Message } from '../../types';
import { messageActions, permalink } from './actions';

/**
 * The row's "⋯" menu: quote, copy the link, mark unread from here, and for who may, edit or
 * move, see the edit history, delete. The last three open a mode of the row in place.
 */
export function MessageMenu({
  message,
  me,
  anchor,
  onClose,
  onCopied,
  onEdit,
  onHistory,
  onDelete,
}: {
  message: Message;
  me: number;
  anchor: HTMLElement | null;
  onClose: () => void;
  /** The link is on the clipboard. */
  onCopied: () => void;
  onEdit: () => void;
  onHistory: () => void;
  onDelete: () => void;
}) {
  const mine = message.sender_id === me;
  return (
    <Popover anchor={anchor} onClose={onClose}>
      <div class="menu" role="menu" aria-label="Message actions">
        <button
          role="menuitem"
          onClick={() => {
            onClose();
            void messageActions.quote(message);
          }}
        >
          Quote and reply
        </button>
        <button
          role="menuitem"
          onClick={() => {
            void navigator.clipboard?.writeText(permalink(message, me)).then(onCopied);
            history.replaceState(null, '', permalink(message, me));
            onClose();
          }}
        >
          Copy link to message
        </button>
        <button
          role="menuitem"
          onClick={() => {
            onClose();
            void messageActions.markUnread(message);
          }}
        >
          Mark as unread from here
        </button>
        {(mine || message.type === 'stream') && (
          <button role="menuitem" onClick={onEdit}>
            {mine ? 'Edit message' : 'Move or rename topic'}
          </button>
        )}
        {hasVisibleHistory(message) && (
          <button role="menuitem" onClick={onHistory}>
            View edit history
          </button>
        )}
        {mine && (
          <button role="menuitem" onClick={onDelete}>
            Delete message
          </button>
        )}
      </div>
    </Popover>
  );
}
