import { call } from '../../api';
import { store } from '../../store';
import type { DraftBox } from './draft';
import { saveDraft } from './drafts';
import type { Target } from './target';

/** Posts a message to the target; a direct message to nobody else goes to oneself. */
async function postMessage(target: Target, content: string): Promise<void> {
  if (target.kind === 'stream') {
    await call('POST', '/messages', {
      type: 'stream',
      to: target.streamId,
      topic: target.topic,
      content,
    });
  } else {
    const to = target.userIds.filter((id) => id !== store.me);
    await call('POST', '/messages', {
      type: 'direct',
      to: to.length ? to : [store.me],
      content,
    });
  }
}

/** What the compose box does around a message it sends. */
export interface Sending {
  /** The message is going (any error shown before is out of date). */
  started: () => void;
  sent: () => void;
  failed: (message: string) => void;
}

/** Sends what the box holds to its target, if anything. */
export async function sendDraft(draft: DraftBox, on: Sending): Promise<void> {
  const { box, target } = draft;
  const content = box.current?.value ?? draft.text;
  if (!content.trim() || !target) return;
  on.started();
  // Emptied at once: what is typed while the message goes is the next message.
  draft.cancelSave();
  draft.showSaved('');
  try {
    await postMessage(target, content);
    on.sent();
    // Sent: the draft goes (after any save of it still on its way), unless the next message
    // is being written already.
    if (!box.current?.value.trim()) void saveDraft(target, '');
  } catch (err) {
    on.failed((err as Error).message);
    // Not sent: the text comes back, before anything typed since.
    const now = box.current?.value ?? '';
    draft.replaceBody(now ? `${content}\n${now}` : content);
  }
}
