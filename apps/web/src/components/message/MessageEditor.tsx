import { useEffect, useState } from 'preact/hooks';
import { call } from '../../api';
import { store } from '../../store';
import type { Message } from '../../types';

/** What the editor holds: the text, and for a channel message its topic and channel. */
interface Draft {
  text: string;
  topic: string;
  channel: number;
}

/**
 * The message's Markdown source, fetched once: the list holds only the rendered HTML. `null`
 * until it comes; the text being edited starts as it.
 */
function useMarkdownSource(messageId: number) {
  const [source, setSource] = useState<string | null>(null);
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  useEffect(() => {
    void call<{ message: { content: string } }>('GET', `/messages/${messageId}`, {
      apply_markdown: false,
    }).then(
      (r) => {
        setSource(r.message.content);
        setText(r.message.content);
      },
      (err: Error) => setError(err.message),
    );
  }, [messageId]);
  return { source, text, setText, error, setError };
}

/**
 * The edit request's fields: the content if one's own text changed; a new topic or channel
 * moves the whole topic (`change_all`). Empty when nothing changed.
 */
function editChanges(
  message: Message,
  mine: boolean,
  source: string,
  draft: Draft,
): Record<string, string | number> {
  const changes: Record<string, string | number> = {};
  if (mine && draft.text !== source) changes.content = draft.text;
  const moved = draft.topic !== message.subject || draft.channel !== message.stream_id;
  if (message.type === 'stream' && moved) {
    if (draft.topic !== message.subject) changes.topic = draft.topic;
    if (draft.channel !== message.stream_id) changes.stream_id = draft.channel;
    changes.propagate_mode = 'change_all';
  }
  return changes;
}

/** A channel message's place: its channel (any the reader is subscribed to) and topic. */
function PlaceFields({
  channel,
  topic,
  onChannel,
  onTopic,
}: {
  channel: number;
  topic: string;
  onChannel: (streamId: number) => void;
  onTopic: (topic: string) => void;
}) {
  const channels = [...store.subscriptions.values()].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <div class="editor-place">
      <select
        aria-label="Channel of this message"
        value={String(channel)}
        onChange={(e) => onChannel(Number((e.currentTarget as HTMLSelectElement).value))}
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
        onInput={(e) => onTopic((e.currentTarget as HTMLInputElement).value)}
      />
    </div>
  );
}

/**
 * Edits a message in place: its text (one's own), and for a channel message its topic and
 * channel, moving the whole topic with it (`propagate_mode` `change_all`), as Zulip's editor.
 */
export function MessageEditor({ message, onDone }: { message: Message; onDone: () => void }) {
  const { source, text, setText, error, setError } = useMarkdownSource(message.id);
  const [topic, setTopic] = useState(message.subject);
  const [channel, setChannel] = useState(message.stream_id ?? 0);
  const mine = message.sender_id === store.me;
  if (source === null) return <p class="muted">{error || 'Loading…'}</p>;
  const save = async () => {
    try {
      const changes = editChanges(message, mine, source, { text, topic, channel });
      if (Object.keys(changes).length) await call('PATCH', `/messages/${message.id}`, changes);
      onDone();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <div class="editor">
      {message.type === 'stream' && (
        <PlaceFields channel={channel} topic={topic} onChannel={setChannel} onTopic={setTopic} />
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
