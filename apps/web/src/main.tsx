import { render, type FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call } from './api';
import { twentyFourHour } from './clock';
import { Compose } from './components/Compose';
import { Lightbox } from './components/Lightbox';
import { Login } from './components/Login';
import { MessageList } from './components/MessageList';
import { Shortcuts, useShortcuts } from './components/Shortcuts';
import { Sidebar } from './components/Sidebar';
import { loadEmoji } from './emoji';
import { EventLoop } from './events';
import { sameNarrow } from './narrow';
import { startNotifications } from './notify';
import { narrowHash, parseHash, type Route } from './router';
import { markNarrowRead, store, type MessageView } from './store';
import type { Narrow } from './types';
import { NarrowActions, Overlays, SearchBar, VIEWS as MORE_VIEWS, feedMessages } from './views';
import './style.css';

/**
 * Views other than a message list, by the first part of their address: `#inbox` shows
 * `VIEWS.inbox` with `path` [], `#settings/profile` shows `VIEWS.settings` with ['profile'].
 * A view is a component; it reads the store and re-renders on its changes.
 */
export type ViewProps = { path: string[] };
const VIEWS: Record<string, FunctionComponent<ViewProps>> = { ...MORE_VIEWS };

/** Where the page opens when its address names nothing: the user's home view, if offered. */
function home(): string {
  const setting = String(store.userSettings.web_home_view ?? '');
  const name = ({ inbox: 'inbox', recent_topics: 'recent' } as Record<string, string>)[setting];
  return name && VIEWS[name] ? `#${name}` : '#feed';
}

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

export function narrowTitle(narrow: Narrow): string {
  switch (narrow.kind) {
    case 'stream': {
      // Before registering, the channel is named by its messages.
      const shown = store.messages[0]?.display_recipient;
      const name =
        store.subscriptions.get(narrow.streamId)?.name ??
        (typeof shown === 'string' ? shown : 'channel');
      return narrow.topic !== undefined
        ? `#${name} › ${narrow.topic || 'general chat'}`
        : `#${name}`;
    }
    case 'dm': {
      const others = narrow.userIds.filter((id) => id !== store.me);
      return others.length ? others.map((id) => store.userName(id)).join(', ') : 'Notes to self';
    }
    case 'feed':
      return 'Combined feed';
    case 'search': {
      const t = narrow.terms;
      const only = t.length === 1 ? t[0] : undefined;
      if (only?.operator === 'is' && only.operand === 'starred') return 'Starred messages';
      if (only?.operator === 'is' && only.operand === 'mentioned') return 'Mentions';
      if (only?.operator === 'sender')
        return `Messages from ${store.userName(Number(only.operand))}`;
      return `Search: ${t.map((x) => `${x.negated ? '-' : ''}${x.operator}:${Array.isArray(x.operand) ? x.operand.join(',') : x.operand}`).join(' ')}`;
    }
  }
}

/** Opens a narrow: its cached messages at once, else its first page; and its channel's topics. */
async function openNarrow(narrow: Narrow, near?: number): Promise<void> {
  const cached = store.views.get(store.open(narrow).key);
  const view = cached!;
  if (narrow.kind === 'stream' && !store.topics.has(narrow.streamId))
    void loadTopics(narrow.streamId).catch(() => undefined);
  if (near !== undefined && !view.messages.some((m) => m.id === near)) {
    view.messages = [];
    view.loaded = false;
    view.scroll = null;
  }
  if (near !== undefined) {
    view.anchor = near;
    view.selected = near;
    view.scroll = null;
  }
  store.changed();
  if (!view.loaded) await store.loadFirst(view, near);
}

/** Presence: active while the page is open (idle while hidden), as Zulip's web app reports it. */
function usePresenceReports(): void {
  useEffect(() => {
    const report = () =>
      void call('POST', '/users/me/presence', {
        status: document.visibilityState === 'visible' ? 'active' : 'idle',
        slim_presence: true,
      }).catch(() => undefined);
    report();
    const timer = setInterval(report, 60_000);
    return () => clearInterval(timer);
  }, []);
}

/** Typing notices expire when their sender goes quiet. */
function useTypingExpiry(): void {
  useEffect(() => {
    const sweep = setInterval(() => {
      const now = Date.now();
      if (store.typing.some((t) => t.until <= now)) {
        store.typing = store.typing.filter((t) => t.until > now);
        store.changed();
      }
    }, 2_000);
    return () => clearInterval(sweep);
  }, []);
}

/** The bar above everything: the sidebar's toggle (on a phone), search, the reader. */
function TopBar({
  menuOpen,
  onMenu,
  onHelp,
  onLogout,
}: {
  menuOpen: boolean;
  onMenu: () => void;
  onHelp: () => void;
  onLogout: () => void;
}) {
  return (
    <header class="topbar">
      <button
        class="icon menu-button"
        aria-label="Conversations"
        aria-expanded={menuOpen}
        onClick={onMenu}
      >
        ☰
      </button>
      {ownOrigin(store.realmIcon) && <img class="realm-icon" src={store.realmIcon} alt="" />}
      <span class="realm-name">{store.realmName}</span>
      <SearchBar />
      {store.connection === 'reconnecting' && (
        <span class="reconnecting" role="status">
          reconnecting…
        </span>
      )}
      <span class="spacer" />
      <button class="icon" aria-label="Keyboard shortcuts" onClick={onHelp}>
        ?
      </button>
      <span class="me">{store.userName(store.me)}</span>
      <button class="secondary" onClick={onLogout}>
        Log out
      </button>
    </header>
  );
}

/** A narrow's page: its title and actions, its messages, and the compose box. */
function NarrowPane({ view, narrow }: { view: MessageView; narrow: Narrow }) {
  return (
    <>
      <div class="narrow-header">
        <h1 class="narrow-title">{narrowTitle(narrow)}</h1>
        <button
          class="secondary small"
          onClick={() => void markNarrowRead(narrow)}
          disabled={!view.messages.some((m) => store.unread.has(m.id))}
        >
          Mark as read
        </button>
        <NarrowActions narrow={narrow} />
      </div>
      <MessageList
        key={view.key}
        view={view}
        messages={narrow.kind === 'feed' ? feedMessages(view.messages) : view.messages}
        me={store.me}
        unreadSize={store.unread.size}
        selected={view.selected}
        loaded={view.loaded}
        h24={twentyFourHour()}
      />
      <Compose narrow={narrow} />
    </>
  );
}

function Chat({ route, onLogout }: { route: Route; onLogout: () => void }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const [help, setHelp] = useState(false);
  useShortcuts(() => setHelp(true));
  usePresenceReports();
  useTypingExpiry();
  useEffect(() => setMenuOpen(false), [route]);
  const view = route.kind === 'narrow' ? store.view : null;
  const narrow = view?.narrow ?? null;
  const View = route.kind === 'view' ? VIEWS[route.name] : undefined;
  return (
    <div class={menuOpen ? 'shell menu-open' : 'shell'}>
      <TopBar
        menuOpen={menuOpen}
        onMenu={() => setMenuOpen(!menuOpen)}
        onHelp={() => setHelp(true)}
        onLogout={onLogout}
      />
      <Sidebar narrow={narrow} onNarrow={(n) => store.go(n)} />
      <main class="main">
        {View ? (
          <View path={route.kind === 'view' ? route.path : []} />
        ) : route.kind === 'view' ? (
          <p class="muted center">Nothing here: {route.name}.</p>
        ) : view && narrow ? (
          <NarrowPane view={view} narrow={narrow} />
        ) : (
          <p class="muted">Choose a channel or a person.</p>
        )}
      </main>
      <Lightbox />
      <Overlays />
      {help && <Shortcuts onClose={() => setHelp(false)} />}
    </div>
  );
}

type Phase = 'loading' | 'login' | 'chat';

/**
 * Follows the address: `store.go` sets it (or, when it already names the narrow and the narrow
 * is not open, routes to it again), and a change of it routes.
 */
function useHashRouting(setRoute: (route: Route | null) => void): void {
  useEffect(() => {
    store.go = (narrow) => {
      const hash = narrowHash(narrow, store.me);
      if (location.hash !== hash) location.hash = hash;
      else if (!store.narrow || !sameNarrow(store.narrow, narrow, store.me))
        setRoute(parseHash(hash));
    };
    const follow = () => setRoute(parseHash(location.hash) ?? parseHash(home()));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
}

/**
 * A linked channel narrow's first page, asked for at once, beside registering, and shown as soon
 * as it comes: the first paint waits for one round trip, and not for the registration's (larger)
 * answer. Null when the address links no channel narrow.
 */
function loadLinkedEarly(linked: Route | null, onShown: () => void): Promise<void> | null {
  if (linked?.kind !== 'narrow' || linked.narrow.kind !== 'stream') return null;
  const view = store.open(linked.narrow);
  return store.loadFirst(view, linked.near).then(onShown, () => undefined);
}

/**
 * Registers and starts the event loop, showing a linked narrow early; goes to the login page if
 * the session is not signed in.
 */
async function startSession(
  setPhase: (phase: Phase) => void,
  setRoute: (route: Route | null) => void,
): Promise<void> {
  const events = new EventLoop(async () => {
    store.topics.clear();
    await store.reconcile();
    if (store.narrow?.kind === 'stream') await loadTopics(store.narrow.streamId);
  });
  const linked = parseHash(location.hash);
  const early = loadLinkedEarly(linked, () => {
    if (!store.me) setPhase('chat');
  });
  try {
    await events.register();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      store.view = null;
      store.views.clear();
      return setPhase('login');
    }
    throw err;
  }
  events.start();
  startNotifications();
  setPhase('chat');
  void loadEmoji();
  const view = store.view;
  if (view && early) {
    // Shown before the queue existed: what was sent meanwhile, and the channel's topics.
    await early;
    store.changed();
    if (view.narrow.kind === 'stream') void loadTopics(view.narrow.streamId);
    await store.catchUp(view);
  }
  if (!linked) setRoute(parseHash(home()));
}

function App() {
  const [, setVersion] = useState(0);
  const [phase, setPhase] = useState<Phase>('loading');
  const [settings, setSettings] = useState({ name: '', icon: '' });
  const [route, setRoute] = useState<Route | null>(() => parseHash(location.hash));

  useEffect(() => store.subscribe(() => setVersion((v) => v + 1)), []);
  useHashRouting(setRoute);

  useEffect(() => {
    if (phase !== 'chat' || !store.me) return;
    if (route?.kind === 'narrow') void openNarrow(route.narrow, route.near);
    else if (!route) setRoute(parseHash(home()));
  }, [route, phase === 'chat' && store.me !== 0]);

  const start = () => startSession(setPhase, setRoute);

  useEffect(() => {
    void call<{ realm_name: string; realm_icon: string }>(
      'GET',
      '/server_settings',
      {},
      { base: '/api/v1' },
    )
      .then((s) => {
        setSettings({ name: s.realm_name, icon: ownOrigin(s.realm_icon) });
        if (!store.me) document.title = s.realm_name;
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
  return (
    <Chat
      route={route ?? { kind: 'narrow', narrow: { kind: 'feed' } }}
      onLogout={() => void logout()}
    />
  );
}

render(<App />, document.getElementById('app')!);
