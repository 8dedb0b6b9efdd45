/**
 * The API level this server implements: the specification describes Zulip's API through feature
 * level 370 (e.g. `(no topic)` read as the empty topic), and clients pick request and response
 * formats by this number.
 */
export const FEATURE_LEVEL = 370;
export const SERVER_VERSION = '11.0-chat-server-0.1.0';
/** Equal to the version: this is not a fork of another server's tree. */
export const SERVER_MERGE_BASE = SERVER_VERSION;
