import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call } from './api';
import { Compose } from './components/Compose';
import { Login } from './components/Login';
import {
  MessageList,
  PAGE,
  fetchMessages,
  loadNarrow,
  loadNewer,
  showNewest,
  type MessagePage,
} from './components/MessageList';
import { Sidebar } from './components/Sidebar';
import { loadEmoji } from './emoji';
import { EventLoop } from './events';
import { store } from './store';
import type { Narrow } from './types';
import './style.css';

async function loadTopics(streamId: number): Promise<void> {
  const { topics } = await call<{ topics: { name: string }[] }>(
    'GET',
    `/users/me/${streamId}/topics`,
  );
  store.topics.set(
    streamId,
    topics.map((t) => t.name),
  );
  store.changed();
}

/**
 * An image URL if it is served by us: the CSP loads no image from elsewhere (the default
 * organization icon is a Gravatar).
 */
function ownOrigin(url: string | undefined): string {
  if (!url) return '';
  try {
    return new URL(url, location.href).origin === location.origin ? url : '';
  } catch {
    return '';
  }
}

function title(narrow: Narrow): string {
  if (narrow.kind === 'stream') {
    // Before registering, the channel is named by its messages.
    const shown = store.messages[0]?.display_recipient;
    const name =
      store.subscriptions.get(narrow.streamId)?.name ??
      (typeof shown === 'string' ? shown : 'channel');
    return narrow.topic !== undefined ? `#${name} › ${narrow.topic}` : `#${name}`;
  }
  const others = narrow.userIds.filter((id) => id !== store.me);
  return others.length ? others.map((id) => store.userName(id)).join(', ') : 'Notes to self';
}

/** The narrow's address, as Zulip's web app spells it (`#narrow/channel/7/topic/lunch`). */
function narrowHash(narrow: Narrow): string {
  if (narrow.kind === 'dm') return `#narrow/dm/${narrow.userIds.join(',')}`;
  const topic = narrow.topic !== undefined ? `/topic/${encodeURIComponent(narrow.topic)}` : '';
  return `#narrow/channel/${narrow.streamId}${topic}`;
}

function narrowOfHash(hash: string): Narrow | null {
  const channel = /^#narrow\/(?:channel|stream)\/(\d+)[^/]*(?:\/topic\/([^/]*))?$/.exec(hash);
  if (channel) {
    const topic = channel[2] !== undefined ? decodeURIComponent(channel[2]) : undefined;
    return { kind: 'stream', streamId: Number(channel[1]), topic };
  }
  const dm = /^#narrow\/dm\/([\d,]+)/.exec(hash);
  return dm ? { kind: 'dm', userIds: dm[1].split(',').map(Number) } : null;
}

/** Opens a narrow: its messages, and its channel's topics. */
async function openNarrow(narrow: Narrow, early?: Promise<MessagePage | null>): Promise<void> {
  if (location.hash !== narrowHash(narrow)) history.replaceState(null, '', narrowHash(narrow));
  store.narrow = narrow;
  store.messages = [];
  store.foundOldest = false;
  store.changed();
  if (narrow.kind === 'stream' && !store.topics.has(narrow.streamId))
    void loadTopics(narrow.streamId);
  await loadNarrow(narrow, early);
}

function Chat({ onLogout }: { onLogout: () => void }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const narrow = store.narrow;
  useEffect(() => {
    // Presence: active while the page is open, as Zulip's web app reports it.
    const report = () =>
      void call('POST', '/users/me/presence', {
        status: document.visibilityState === 'visible' ? 'active' : 'idle',
        slim_presence: true,
      }).catch(() => undefined);
    report();
    const timer = setInterval(report, 60_000);
    // Typing notices expire when their sender goes quiet.
    const sweep = setInterval(() => {
      const now = Date.now();
      if (store.typing.some((t) => t.until <= now)) {
        store.typing = store.typing.filter((t) => t.until > now);
        store.changed();
      }
    }, 2_000);
    return () => {
      clearInterval(timer);
      clearInterval(sweep);
    };
  }, []);
  const choose = (n: Narrow) => {
    setMenuOpen(false);
    void openNarrow(n);
  };
  return (
    <div class={menuOpen ? 'shell menu-open' : 'shell'}>
      <header class="topbar">
        <button
          class="icon menu-button"
          aria-label="Conversations"
          aria-expanded={menuOpen}
          onClick={() => setMenuOpen(!menuOpen)}
        >
          ☰
        </button>
        {ownOrigin(store.realmIcon) && <img class="realm-icon" src={store.realmIcon} alt="" />}
        <span class="realm-name">{store.realmName}</span>
        {store.connection === 'reconnecting' && (
          <span class="reconnecting" role="status">
            reconnecting…
          </span>
        )}
        <span class="spacer" />
        <span class="me">{store.userName(store.me)}</span>
        <button class="secondary" onClick={onLogout}>
          Log out
        </button>
      </header>
      <Sidebar narrow={narrow} onNarrow={choose} />
      <main class="main">
        {narrow ? (
          <>
            <h1 class="narrow-title">{title(narrow)}</h1>
            <MessageList
              narrow={narrow}
              messages={store.messages}
              foundOldest={store.foundOldest}
              me={store.me}
            />
            <Compose narrow={narrow} />
          </>
        ) : (
          <p class="muted">Choose a channel or a person.</p>
        )}
      </main>
    </div>
  );
}

function App() {
  const [, setVersion] = useState(0);
  const [phase, setPhase] = useState<'loading' | 'login' | 'chat'>('loading');
  const [settings, setSettings] = useState({ name: '', icon: '' });

  useEffect(() => store.subscribe(() => setVersion((v) => v + 1)), []);

  const start = async () => {
    const events = new EventLoop(async () => {
      if (store.narrow) await loadNarrow(store.narrow);
      store.topics.clear();
      if (store.narrow?.kind === 'stream') await loadTopics(store.narrow.streamId);
    });
    // A linked channel's newest messages are asked for at once, beside registering, and shown
    // as soon as they come: the first paint waits for one round trip, and not for the
    // registration's (larger) answer.
    const linked = narrowOfHash(location.hash);
    const early =
      linked?.kind === 'stream'
        ? fetchMessages(linked, 'newest', PAGE).then(
            (page) => {
              if (!store.narrow && !store.me) {
                store.narrow = linked;
                showNewest(linked, page);
                setPhase('chat');
              }
              return page;
            },
            () => null,
          )
        : null;
    try {
      await events.register();
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) {
        store.narrow = null;
        return setPhase('login');
      }
      throw err;
    }
    events.start();
    setPhase('chat');
    document.title = store.realmName;
    void loadEmoji();
    const first = [...store.subscriptions.values()].sort((a, b) => a.name.localeCompare(b.name))[0];
    if (store.narrow) {
      // Shown before the queue existed: what was sent meanwhile, and the channel's topics.
      const shown = store.narrow;
      store.changed();
      if (shown.kind === 'stream') void loadTopics(shown.streamId);
      void loadNewer(shown);
    } else if (linked) void openNarrow(linked, early ?? undefined);
    else if (first) void openNarrow({ kind: 'stream', streamId: first.stream_id });
  };

  useEffect(() => {
    void call<{ realm_name: string; realm_icon: string }>(
      'GET',
      '/server_settings',
      {},
      { base: '/api/v1' },
    )
      .then((s) => {
        setSettings({ name: s.realm_name, icon: ownOrigin(s.realm_icon) });
        document.title = s.realm_name;
      })
      .catch(() => undefined);
    void start();
  }, []);

  const logout = async () => {
    await call('POST', '/logout');
    location.reload();
  };

  if (phase === 'loading') return <p class="muted center">Loading…</p>;
  if (phase === 'login')
    return (
      <Login realmName={settings.name} realmIcon={settings.icon} onLogin={() => void start()} />
    );
  return <Chat onLogout={() => void logout()} />;
}

render(<App />, document.getElementById('app')!);
