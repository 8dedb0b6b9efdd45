import { EnterSendsToggle } from '../EnterSends';

interface Props {
  onFiles: (files: File[]) => void;
  /** Whether the emoji picker is open. */
  picker: boolean;
  onPicker: () => void;
  previewing: boolean;
  onPreview: () => void;
  /** Whether there is text to preview, and whether it can be sent. */
  canPreview: boolean;
  canSend: boolean;
  onSend: () => void;
}

/** The buttons under the box: attach, emoji, preview and send, and Enter's setting. */
export function ComposeActions(props: Props) {
  return (
    <div class="compose-actions">
      <label class="file-button">
        Attach
        <input
          type="file"
          multiple
          class="visually-hidden"
          onChange={(e) => {
            const files = (e.currentTarget as HTMLInputElement).files;
            if (files?.length) props.onFiles(Array.from(files));
          }}
        />
      </label>
      <button
        class="secondary"
        type="button"
        aria-label="Insert emoji"
        aria-expanded={props.picker}
        onClick={props.onPicker}
      >
        ☺
      </button>
      <button class="secondary" onClick={props.onPreview} disabled={!props.canPreview}>
        {props.previewing ? 'Edit' : 'Preview'}
      </button>
      <button onClick={props.onSend} disabled={!props.canSend}>
        Send
      </button>
      <EnterSendsToggle />
    </div>
  );
}
