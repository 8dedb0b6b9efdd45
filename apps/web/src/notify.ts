import { store } from './store';
import { inNarrow } from './narrow';
import type { Message, ServerEvent } from './types';

/**
 * Notifications as the user's own settings ask (Zulip's `user_settings`, and each channel's
 * overrides): a desktop notification and a sound for direct messages and mentions
 * (`enable_desktop_notifications`, `enable_sounds`) and for channels
 * (`enable_stream_desktop_notifications`, `enable_stream_audible_notifications`, or the
 * subscription's `desktop_notifications` / `audible_notifications`); none for muted channels,
 * one's own messages, or the conversation in view while the page has the focus. The tab title
 * and the favicon carry the unread count that `desktop_icon_count_display` asks for.
 */

const setting = (name: string) => store.userSettings[name];

function wants(m: Message, flags: string[]): { desktop: boolean; sound: boolean } {
  const none = { desktop: false, sound: false };
  if (m.sender_id === store.me || flags.includes('read')) return none;
  const mentioned = flags.some((f) => f === 'mentioned' || f.endsWith('wildcard_mentioned'));
  if (m.type === 'private' || mentioned)
    return {
      desktop: !!setting('enable_desktop_notifications'),
      sound: !!setting('enable_sounds'),
    };
  const sub = store.subscriptions.get(m.stream_id!);
  if (!sub || sub.is_muted) return none;
  return {
    desktop: sub.desktop_notifications ?? !!setting('enable_stream_desktop_notifications'),
    sound: sub.audible_notifications ?? !!setting('enable_stream_audible_notifications'),
  };
}

/**
 * The server's sounds (`available_notification_sounds`) as notes, made here with Web Audio (no
 * sound file to fetch): each note's pitch (Hz) and start (s). A name this client does not know
 * plays Zulip's; `none` plays nothing.
 */
const SOUNDS: Record<string, [number, number][]> & { zulip: [number, number][] } = {
  zulip: [
    [880, 0],
    [1320, 0.12],
  ],
  ding: [[1568, 0]],
  'chime-saved': [
    [784, 0],
    [988, 0.1],
    [1175, 0.2],
  ],
};

let audio: AudioContext | null = null;
/** The user's `notification_sound`, played once. */
function chime(): void {
  const name = String(setting('notification_sound') ?? 'zulip');
  if (name === 'none') return;
  try {
    audio ??= new AudioContext();
    // Made before the reader's first click or key, the context waits for one (autoplay rules).
    if (audio.state === 'suspended') void audio.resume().catch(() => undefined);
    const now = audio.currentTime;
    for (const [freq, at] of SOUNDS[name] ?? SOUNDS.zulip) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + at);
      gain.gain.exponentialRampToValueAtTime(0.15, now + at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + at + 0.3);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + at);
      osc.stop(now + at + 0.32);
    }
  } catch {
    // No audio output: the notification is still shown.
  }
}

function onEvent(event: ServerEvent): void {
  if (event.type !== 'message') return;
  const m = event.message as Message;
  const flags = (event.flags as string[]) ?? [];
  const { desktop, sound } = wants(m, flags);
  const inView =
    document.visibilityState === 'visible' &&
    document.hasFocus() &&
    !!store.narrow &&
    inNarrow(m, store.narrow, store.me);
  if (inView) return;
  if (sound) chime();
  if (desktop && 'Notification' in window && Notification.permission === 'granted') {
    const where =
      m.type === 'stream'
        ? `#${store.subscriptions.get(m.stream_id!)?.name ?? ''} › ${m.subject}`
        : 'Direct message';
    const text =
      m.type === 'private' && setting('pm_content_in_desktop_notifications') === false
        ? 'New direct message'
        : (new DOMParser().parseFromString(m.content, 'text/html').body.textContent ?? '').slice(
            0,
            150,
          );
    const n = new Notification(`${m.sender_full_name} (${where})`, {
      body: text,
      tag: String(m.id),
    });
    n.onclick = () => {
      focus();
      store.go(
        m.type === 'stream'
          ? { kind: 'stream', streamId: m.stream_id!, topic: m.subject }
          : {
              kind: 'dm',
              userIds: Array.isArray(m.display_recipient)
                ? m.display_recipient.map((r) => r.id)
                : [m.sender_id],
            },
      );
      n.close();
    };
  }
}

/** The count the tab shows, per `desktop_icon_count_display` (1 all, 2-3 DMs and mentions). */
export function badgeCount(): number {
  const mode = Number(setting('desktop_icon_count_display') ?? 1);
  if (mode === 1) {
    let n = 0;
    for (const place of store.unread.values())
      if ('dm' in place || !store.subscriptions.get(place.streamId)?.is_muted) n++;
    return n;
  }
  if (mode === 2 || mode === 3) {
    let n = 0;
    for (const [id, place] of store.unread) if ('dm' in place || store.mentions.has(id)) n++;
    return n;
  }
  return 0;
}

let lastBadge = -1;
let lastTitle = '';
function drawFavicon(count: number): void {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 32;
  const g = canvas.getContext('2d');
  if (!g) return;
  g.fillStyle = '#2a5db0';
  g.beginPath();
  g.roundRect(2, 2, 28, 28, 7);
  g.fill();
  g.fillStyle = '#fff';
  g.font = 'bold 17px system-ui, sans-serif';
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.fillText(count ? (count > 99 ? '99+' : String(count)) : '💬', 16, 17, 28);
  let link = document.querySelector<HTMLLinkElement>('link[rel=icon]');
  if (!link) {
    link = document.createElement('link');
    link.rel = 'icon';
    document.head.append(link);
  }
  link.href = canvas.toDataURL('image/png');
}

function updateBadge(): void {
  if (!store.me) return;
  const count = badgeCount();
  const title = `${count ? `(${count}) ` : ''}${store.realmName}`;
  if (title !== lastTitle) document.title = lastTitle = title;
  if (count !== lastBadge) {
    lastBadge = count;
    drawFavicon(count);
  }
}

let started = false;
export function startNotifications(): void {
  if (started) return;
  started = true;
  store.eventListeners.add(onEvent);
  store.subscribe(updateBadge);
  updateBadge();
  // Asked once, on a user's gesture, as browsers require.
  if ('Notification' in window && Notification.permission === 'default') {
    const ask = () => void Notification.requestPermission().catch(() => undefined);
    document.addEventListener('click', ask, { once: true });
  }
}
