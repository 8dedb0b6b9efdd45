import { store } from '../store';

/**
 * The views of this folder, by address (`#inbox`, `#channels/7`, `#settings/display`,
 * `#organization/users`): main.tsx shows the one the address names.
 */
export type View =
  | { kind: 'inbox' }
  | { kind: 'recent' }
  | { kind: 'channels'; streamId?: number; creating?: boolean }
  | { kind: 'people' }
  | { kind: 'settings'; tab: SettingsTab }
  | { kind: 'admin'; tab: AdminTab };

export type SettingsTab = 'profile' | 'account' | 'display' | 'notifications' | 'status';
export type AdminTab = 'organization' | 'users' | 'invitations';

export const route = {
  /** The query of the search in view, as typed. */
  query: '',
  /** The person whose profile card is open, over whatever is shown. */
  profile: null as number | null,
};

export function viewHash(view: View): string {
  switch (view.kind) {
    case 'channels':
      return view.creating
        ? '#channels/new'
        : view.streamId !== undefined
          ? `#channels/${view.streamId}`
          : '#channels';
    case 'settings':
      return `#settings/${view.tab}`;
    case 'admin':
      return `#organization/${view.tab}`;
    default:
      return `#${view.kind}`;
  }
}

/** Shows a view in place of the open conversation. */
export function showView(view: View): void {
  location.hash = viewHash(view);
}

/** Whether the address names this view (its first part). */
export function viewShown(view: View): boolean {
  return location.hash.split('/')[0] === viewHash(view).split('/')[0];
}

export function showProfile(userId: number | null): void {
  route.profile = userId;
  store.changed();
}
