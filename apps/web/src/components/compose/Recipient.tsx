import { store } from '../../store';
import { PeoplePicker } from './PeoplePicker';
import type { Target } from './target';

/**
 * Where the message goes: a channel and its topic, or the people of a direct message. Choosing
 * another channel (or direct messages) turns the box to it, with its draft (`onSwitch`); the
 * topic and the people change the target in place (`onChange`).
 */
export function Recipient({
  target,
  onSwitch,
  onChange,
}: {
  target: Target | null;
  onSwitch: (next: Target) => void;
  onChange: (target: Target) => void;
}) {
  const channels = [...store.subscriptions.values()].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <div class="recipient">
      <select
        aria-label="Send to"
        value={
          target?.kind === 'stream' ? String(target.streamId) : target?.kind === 'dm' ? 'dm' : ''
        }
        onChange={(e) => {
          const v = (e.currentTarget as HTMLSelectElement).value;
          onSwitch(
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
            onChange({ ...target, topic: (e.currentTarget as HTMLInputElement).value })
          }
        />
      )}
      {target?.kind === 'dm' && (
        <PeoplePicker
          ids={target.userIds}
          onChange={(ids) => onChange({ kind: 'dm', userIds: ids })}
        />
      )}
    </div>
  );
}
