import { Emoji, EmojiPicker } from '../Emoji';
import { enterAction, enterHint } from '../EnterSends';
import type { Completion, Suggestion } from './completion';
import type { DraftBox } from './draft';
import type { Typing } from './typing';

interface Props {
  draft: DraftBox;
  completion: Completion;
  /** Whether the emoji picker is open. */
  picker: boolean;
  onPickerClose: () => void;
  typing: Typing;
  /** The writer changed the text. */
  onEdit: () => void;
  onSend: () => void;
  /** Esc: the text is to go to drafts. */
  onPutAway: () => void;
  onFiles: (files: File[]) => void;
}

/**
 * The message's textarea, with @-mention and emoji completion under it and the emoji picker.
 * Enter or Ctrl+Enter sends as the user's `enter_sends` says; files pasted are uploaded.
 */
export function MessageInput(props: Props) {
  const { draft, completion, picker, onPickerClose } = props;
  const { suggest, selected } = completion;
  const complete = (s: Suggestion) => {
    if (!suggest) return;
    draft.insertAtCaret(s.insert, suggest.start);
    completion.close();
  };
  const onInput = (e: Event) => {
    const el = e.currentTarget as HTMLTextAreaElement;
    draft.setBody(el.value);
    props.onEdit();
    completion.update(el);
    props.typing(el.value ? 'start' : 'stop');
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (completion.onKey(e, complete)) return;
    const enter = enterAction(e);
    if (enter) e.preventDefault();
    if (enter === 'send') props.onSend();
    else if (enter === 'newline') draft.insertAtCaret('\n');
    else if (e.key === 'Escape') {
      e.stopPropagation();
      props.onPutAway();
    }
  };
  return (
    <div class="input-wrap">
      <textarea
        ref={draft.box}
        aria-label="Message"
        placeholder={enterHint()}
        value={draft.text}
        onInput={onInput}
        onKeyDown={onKeyDown}
        onBlur={() => props.typing('stop')}
        onPaste={(e) => {
          const files = Array.from(e.clipboardData?.files ?? []);
          if (files.length) {
            e.preventDefault();
            props.onFiles(files);
          }
        }}
      />
      {suggest && <SuggestionList list={suggest.list} selected={selected} onPick={complete} />}
      {picker && (
        <EmojiPicker
          label="Insert an emoji"
          onClose={onPickerClose}
          onPick={(c) => {
            onPickerClose();
            draft.insertAtCaret(`:${c.name}: `);
            draft.box.current?.focus();
          }}
        />
      )}
    </div>
  );
}

/** The completions offered; a click picks one without taking the focus from the box. */
function SuggestionList({
  list,
  selected,
  onPick,
}: {
  list: Suggestion[];
  selected: number;
  onPick: (s: Suggestion) => void;
}) {
  return (
    <ul class="suggestions" role="listbox" aria-label="Suggestions">
      {list.map((s, i) => (
        <li
          key={s.key}
          role="option"
          aria-selected={i === selected}
          onMouseDown={(e) => {
            e.preventDefault();
            onPick(s);
          }}
        >
          {s.emoji && <Emoji choice={s.emoji} />} {s.label}
        </li>
      ))}
    </ul>
  );
}
