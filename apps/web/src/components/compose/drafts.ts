import { call, csrfToken } from '../../api';
import { dmKey } from '../../narrow';
import { store, type Draft } from '../../store';
import { targetKey, type Target } from './target';

/** The server's draft for a target, if any (drafts are kept with `/drafts`). */
export function draftFor(t: Target | null): Draft | undefined {
  if (!t) return undefined;
  const key = targetKey(t);
  for (const d of store.drafts.values()) {
    const dk =
      d.type === 'stream'
        ? `s${d.to[0]}:${d.topic.toLowerCase()}`
        : d.type === 'private'
          ? `d${dmKey(d.to, store.me)}`
          : '';
    if (dk === key) return d;
  }
  return undefined;
}

function draftOf(t: Target, content: string): Draft {
  return {
    type: t.kind === 'stream' ? 'stream' : 'private',
    to: t.kind === 'stream' ? [t.streamId] : t.userIds.filter((id) => id !== store.me),
    topic: t.kind === 'stream' ? t.topic : '',
    content,
    timestamp: Math.floor(Date.now() / 1000),
  };
}

async function writeDraft(t: Target, content: string): Promise<void> {
  const existing = draftFor(t);
  if (!content.trim()) {
    if (existing?.id) {
      store.drafts.delete(existing.id);
      await call('DELETE', `/drafts/${existing.id}`);
    }
    return;
  }
  if (existing?.content === content) return;
  const draft = draftOf(t, content);
  if (existing?.id) {
    store.drafts.set(existing.id, { ...draft, id: existing.id });
    await call('PATCH', `/drafts/${existing.id}`, { draft });
  } else {
    const { ids } = await call<{ ids: number[] }>('POST', '/drafts', { drafts: [draft] });
    const [id] = ids;
    // Kept under no ID, the draft would be posted anew on every save and never deleted.
    if (id === undefined) throw new Error('POST /drafts returned no draft ID');
    store.drafts.set(id, { ...draft, id });
  }
}

/** The draft writes in flight, one after another: a second never races the first's POST. */
let writes: Promise<void> = Promise.resolve();

/**
 * Saves what is typed as the target's draft on the server (`/drafts`): a reload, or another
 * device, finds it there. Empty text deletes the target's draft.
 */
export function saveDraft(t: Target, content: string): Promise<void> {
  writes = writes.then(() => writeDraft(t, content)).catch(() => undefined);
  return writes;
}

/**
 * The page is going (a reload, a closed tab) with a save still waiting: sent with `keepalive`,
 * which outlives the page, where a queued write would not.
 */
export function saveDraftOnExit(t: Target, content: string): void {
  const existing = draftFor(t);
  if (!content.trim() || existing?.content === content) return;
  const draft = draftOf(t, content);
  const form = new URLSearchParams(
    existing?.id ? { draft: JSON.stringify(draft) } : { drafts: JSON.stringify([draft]) },
  );
  void fetch(existing?.id ? `/json/drafts/${existing.id}` : '/json/drafts', {
    method: existing?.id ? 'PATCH' : 'POST',
    headers: { 'X-CSRFToken': csrfToken() },
    body: form,
    credentials: 'same-origin',
    keepalive: true,
  }).catch(() => undefined);
}
