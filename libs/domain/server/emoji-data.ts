import emojiCodeToNames from '../../markdown/emoji-data.json';

/**
 * Where clients fetch the server's emoji names (`server_emoji_data_url`), in the form of Zulip's
 * `emoji_api.json`: each Unicode emoji code with its names, the first being canonical.
 */
export const EMOJI_DATA_PATH = '/static/generated/emoji/emoji_api.json';

export const emojiApiData = (): { code_to_names: Record<string, string[]> } => ({
  code_to_names: emojiCodeToNames,
});
