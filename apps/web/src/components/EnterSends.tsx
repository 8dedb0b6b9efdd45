import { call } from '../api';
import { store } from '../store';

/** Touch screens: their keyboards have no Shift+Enter to speak of, so Enter starts a line. */
export const touchScreen = () => matchMedia('(pointer: coarse)').matches;

/** Zulip's `enter_sends`, which touch screens leave aside. */
const enterSends = () => store.userSettings.enter_sends === true && !touchScreen();

/**
 * What a key press in the compose box does, as Zulip's web app: with `enter_sends` on, Enter
 * sends and Ctrl+Enter starts a line; off (Zulip's default, and always on touch screens), Enter
 * starts a line and Ctrl+Enter (⌘+Enter) sends. Shift+Enter always starts a line. `null`: the
 * textarea's own behaviour (a plain Enter's new line, or any other key).
 */
export function enterAction(e: KeyboardEvent): 'send' | 'newline' | null {
  if (e.key !== 'Enter' || e.isComposing || e.shiftKey || e.altKey) return null;
  const modified = e.ctrlKey || e.metaKey;
  if (modified) return enterSends() ? 'newline' : 'send';
  return enterSends() ? 'send' : null;
}

/** The compose box's hint, naming the keys that send. */
export const enterHint = () =>
  touchScreen()
    ? 'Write a message'
    : enterSends()
      ? 'Write a message — Enter sends, Shift+Enter for a new line'
      : 'Write a message — Ctrl+Enter sends, Enter for a new line';

/**
 * Zulip's "Press Enter to send" beside the Send button: the user's setting, changed at once here
 * and on the server (`PATCH /settings`), and back as it was if the server refuses.
 */
export function EnterSendsToggle() {
  if (touchScreen()) return null;
  const on = store.userSettings.enter_sends === true;
  const set = (value: boolean) => {
    store.userSettings = { ...store.userSettings, enter_sends: value };
    store.changed();
    void call('PATCH', '/settings', { enter_sends: value }).catch(() => {
      store.userSettings = { ...store.userSettings, enter_sends: !value };
      store.changed();
    });
  };
  return (
    <label class="check enter-sends">
      <input
        type="checkbox"
        checked={on}
        onChange={(e) => set((e.currentTarget as HTMLInputElement).checked)}
      />
      Press Enter to send
    </label>
  );
}
