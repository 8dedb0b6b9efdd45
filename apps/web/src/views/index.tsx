import type { FunctionComponent } from 'preact';
import { useEffect } from 'preact/hooks';
import { store } from '../store';
import type { Narrow } from '../types';
import { Admin } from './Admin';
import { Channels } from './Channels';
import { Inbox } from './Inbox';
import { People, ProfileCard, watchSenderClicks } from './People';
import { Recent } from './Recent';
import { route, showView, viewShown, type AdminTab, type SettingsTab, type View } from './route';
import { Settings } from './Settings';
import { viewState } from './state';
import './views.css';

export { feedMessages } from './muting';
export { SearchBar } from './SearchBar';
export { NarrowActions } from './TopicActions';
export { route, showView } from './route';

const go = (n: Narrow) => store.go(n);

/** The views by the first part of their address, each given the rest of it as `path`. */
export const VIEWS: Record<string, FunctionComponent<{ path: string[] }>> = {
  inbox: () => <Inbox onNarrow={go} />,
  recent: () => <Recent onNarrow={go} />,
  channels: ({ path }) => (
    <Channels
      streamId={/^\d+$/.test(path[0] ?? '') ? Number(path[0]) : undefined}
      creating={path[0] === 'new'}
      onNarrow={go}
    />
  ),
  people: () => <People />,
  settings: ({ path }) => <Settings tab={(path[0] || 'profile') as SettingsTab} />,
  organization: ({ path }) => <Admin tab={(path[0] || 'organization') as AdminTab} />,
};

/** The profile card when one is open, and the clicks on senders in messages that open it. */
export function Overlays() {
  useEffect(watchSenderClicks, []);
  return route.profile !== null ? <ProfileCard userId={route.profile} onNarrow={go} /> : null;
}

const LINKS: [View | 'feed', string][] = [
  [{ kind: 'inbox' }, 'Inbox'],
  [{ kind: 'recent' }, 'Recent conversations'],
  ['feed', 'Combined feed'],
  [{ kind: 'channels' }, 'Channels'],
  [{ kind: 'people' }, 'People'],
  [{ kind: 'settings', tab: 'profile' }, 'Settings'],
  [{ kind: 'admin', tab: 'organization' }, 'Organization'],
];

/** The sidebar's links to the views, and to the combined feed (a narrow). */
export function ViewLinks({ narrow }: { narrow: Narrow | null }) {
  viewState.sync();
  return (
    <ul class="view-links">
      {LINKS.filter(
        ([view]) => view === 'feed' || view.kind !== 'admin' || viewState.isAdmin(),
      ).map(([view, label]) => {
        const here = view === 'feed' ? narrow?.kind === 'feed' : !narrow && viewShown(view);
        return (
          <li key={label}>
            <button
              class="nav-item"
              aria-current={here ? 'page' : undefined}
              onClick={() => (view === 'feed' ? go({ kind: 'feed' }) : showView(view))}
            >
              <span class="name">{label}</span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}

/** A person's presence (active, idle or offline), for the sidebar's dots. */
export const presenceOf = (userId: number) => viewState.presenceOf(userId);
