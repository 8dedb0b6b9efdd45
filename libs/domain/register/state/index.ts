import type { QueueParams } from '../queue-params';
import { alertWordsState } from './alert-words';
import { realmBotsState, serviceCatalogueState } from './bots';
import { customProfileFieldsState } from './custom-profile-fields';
import { defaultChannelGroupsState, defaultChannelsState } from './default-channels';
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
import {
  giphyState,
  onboardingStepsState,
  stopWordsState,
  videoCallsState,
} from './server-features';
import { starredMessagesState } from './starred-messages';
import { streamState } from './streams';
import { subscriptionState } from './subscriptions';
import { wantedTypes, type StateProvider } from './types';
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
  starredMessagesState,
  realmBotsState,
  serviceCatalogueState,
  defaultChannelsState,
  defaultChannelGroupsState,
  stopWordsState,
  onboardingStepsState,
  videoCallsState,
  giphyState,
];

export interface StatePlan {
  /** The parts of the snapshot the registration asks for. */
  providers: readonly StateProvider[];
  /** The names asked for that those parts cover: events of these types are in the snapshot. */
  eventTypes: string[];
}

/**
 * What `POST /register` reads for these parameters: every part one of whose names is asked for
 * (`fetch_event_types`, else `event_types`; neither: everything), or all of whose names are, for
 * a part that needs them together.
 */
export function statePlan(
  params: Pick<QueueParams, 'fetch_event_types' | 'event_types'>,
): StatePlan {
  const wanted = wantedTypes(params);
  if (wanted === null) {
    return {
      providers: STATE_PROVIDERS,
      eventTypes: [...new Set(STATE_PROVIDERS.flatMap((p) => p.eventTypes))],
    };
  }
  const providers = STATE_PROVIDERS.filter((p) =>
    p.needsAll ? p.eventTypes.every((t) => wanted.has(t)) : p.eventTypes.some((t) => wanted.has(t)),
  );
  const covered = providers.flatMap((p) => p.eventTypes.filter((t) => wanted.has(t)));
  return { providers, eventTypes: [...new Set(covered)] };
}
