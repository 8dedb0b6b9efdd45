import { alertWordsState } from './alert-words';
import { customProfileFieldsState } from './custom-profile-fields';
import { draftsState } from './drafts';
import { messageState } from './message';
import { mutedUsersState } from './muted-users';
import { presenceState } from './presence';
import { realmState } from './realm';
import { realmDomainsState } from './realm-domains';
import { realmEmojiState } from './realm-emoji';
import { realmLinkifiersState } from './realm-linkifiers';
import { realmPlaygroundsState } from './realm-playgrounds';
import { realmUserState } from './realm-user';
import { realmUserSettingsDefaultsState } from './realm-user-settings-defaults';
import { recentPrivateConversationsState } from './recent-private-conversations';
import { scheduledMessagesState } from './scheduled-messages';
import { streamState } from './streams';
import { subscriptionState } from './subscriptions';
import type { StateProvider } from './types';
import { unreadMsgsState } from './unread-msgs';
import { userGroupsState } from './user-groups';
import { userSettingsState } from './user-settings';
import { userStatusState } from './user-status';
import { userTopicsState } from './user-topics';

export type { StateInput, StateProvider } from './types';

/** Every part of the `POST /register` snapshot; add a provider here for a new event type. */
export const STATE_PROVIDERS: readonly StateProvider[] = [
  realmState,
  realmUserState,
  subscriptionState,
  streamState,
  messageState,
  unreadMsgsState,
  presenceState,
  userSettingsState,
  userGroupsState,
  realmEmojiState,
  realmLinkifiersState,
  realmPlaygroundsState,
  realmUserSettingsDefaultsState,
  realmDomainsState,
  alertWordsState,
  customProfileFieldsState,
  draftsState,
  scheduledMessagesState,
  userStatusState,
  mutedUsersState,
  userTopicsState,
  recentPrivateConversationsState,
];
