import { plainFormatter, type EventFields } from '../formatter';

/** `alert_words` events. */
export interface AlertWordsEvent {
  type: 'alert_words';
  alert_words: string[];
}

export const alertWordsEvent = (fields: EventFields<AlertWordsEvent>): AlertWordsEvent => ({
  ...fields,
  type: 'alert_words',
});

export const alertWordsFormatter = plainFormatter<AlertWordsEvent>();
