import { useState } from 'preact/hooks';
import type { Narrow } from '../types';
import { useCompletion } from './compose/completion';
import { ComposeActions } from './compose/ComposeActions';
import { useDraft, useDraftKeptOnExit } from './compose/draft';
import { MessageInput } from './compose/MessageInput';
import { Preview, usePreview } from './compose/preview';
import { UndoNotice, usePutAway } from './compose/put-away';
import { Recipient } from './compose/Recipient';
import { useComposeRequests } from './compose/requests';
import { sendDraft } from './compose/send';
import { TypingNotice, useTyping } from './compose/typing';
import { UploadList, useUploads } from './compose/uploads';

/**
 * The compose box: a channel and topic (or the people of a direct message, one or several),
 * Markdown with a preview, @-mention and emoji completion and an emoji picker, files pasted,
 * dropped or attached (with progress), typing notifications, and drafts kept on the server.
 * Enter or Ctrl+Enter sends as the user's `enter_sends` says (on touch screens Enter starts a
 * line); Esc puts the text away as a draft, with Undo.
 */
export function Compose({ narrow }: { narrow: Narrow | null }) {
  const [error, setError] = useState('');
  const [picker, setPicker] = useState(false);
  const preview = usePreview();
  const completion = useCompletion();
  /** What shows beside the text (its preview, completions) goes when the text does. */
  const closeAside = () => {
    preview.close();
    completion.close();
  };
  const draft = useDraft(narrow, closeAside);
  useComposeRequests(draft);
  useDraftKeptOnExit(draft);
  const { target, text } = draft;
  const away = usePutAway(draft);
  const typing = useTyping(target);
  const { uploads, upload, drop } = useUploads(draft, setError);

  const putAway = () => {
    away.putAway();
    closeAside();
    typing('stop');
    draft.box.current?.blur();
  };
  const send = () =>
    void sendDraft(draft, {
      started: () => setError(''),
      sent: () => {
        typing('stop');
        preview.close();
        away.dismiss();
      },
      failed: setError,
    });

  return (
    <section
      class="compose"
      aria-label="Compose"
      onDragOver={(e) => e.preventDefault()}
      onDrop={drop}
    >
      <TypingNotice target={target} />
      {away.undo && <UndoNotice onUndo={away.restore} />}
      <Recipient target={target} onSwitch={draft.switchTo} onChange={draft.setTarget} />
      {preview.html !== null ? (
        <Preview html={preview.html} />
      ) : (
        <MessageInput
          draft={draft}
          completion={completion}
          picker={picker}
          onPickerClose={() => setPicker(false)}
          typing={typing}
          onEdit={away.dismiss}
          onSend={send}
          onPutAway={putAway}
          onFiles={upload}
        />
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <UploadList uploads={uploads} />
      <ComposeActions
        onFiles={upload}
        picker={picker}
        onPicker={() => setPicker(!picker)}
        previewing={preview.html !== null}
        onPreview={() => void preview.toggle(text)}
        canPreview={!!text}
        canSend={!!text.trim() && !!target}
        onSend={send}
      />
    </section>
  );
}
