import { STOP_WORDS } from '../../messages/stop-words';
import type { StateProvider } from './types';

/** `stop_words`: the words full-text search ignores. */
export const stopWordsState: StateProvider = {
  eventTypes: ['stop_words'],
  async fetch() {
    return { stop_words: STOP_WORDS };
  },
};

/** `onboarding_steps`: the tips the user has yet to see; this server shows none. */
export const onboardingStepsState: StateProvider = {
  eventTypes: ['onboarding_steps'],
  async fetch() {
    return { onboarding_steps: [] };
  },
};

/** `video_calls`: whether the user linked a Zoom account; no Zoom integration is configured here. */
export const videoCallsState: StateProvider = {
  eventTypes: ['video_calls'],
  async fetch() {
    return { has_zoom_token: false };
  },
};

/** `giphy`: the server's GIPHY API key; '' as none is configured (Zulip's value then). */
export const giphyState: StateProvider = {
  eventTypes: ['giphy'],
  async fetch() {
    return { giphy_api_key: '' };
  },
};
