import type { BatchCommand } from './by-node';

/** ARGV[1] run on each key of KEYS; the replies in order. */
const PER_KEY_SCRIPT = `
local out = {}
for i = 1, #KEYS do out[i] = redis.call(ARGV[1], KEYS[i]) end
return out
`;

/** Keys one script call takes at most: Redis runs nothing else while a script runs. */
const KEYS_PER_CALL = 1000;

/**
 * The script calls that run `command` on each of `keys` (a command that takes the key alone, such
 * as SMEMBERS), as commands of a batch (`execByNode`) placed by `placedBy`: reading thousands of
 * small keys, one command each costs the client thousands of commands' encoding and replies, and
 * a call per thousand keys does not. The keys must share a node, and on a cluster a slot (that of
 * `placedBy`). One reply per call; `perKeyReplies` gives one per key.
 */
export function perKeyCommands(placedBy: string, command: string, keys: string[]): BatchCommand[] {
  const calls: BatchCommand[] = [];
  for (let i = 0; i < keys.length; i += KEYS_PER_CALL) {
    const chunk = keys.slice(i, i + KEYS_PER_CALL);
    calls.push({
      key: placedBy,
      command: 'eval',
      args: [PER_KEY_SCRIPT, chunk.length, ...chunk, command],
    });
  }
  return calls;
}

/** The replies of the calls `perKeyCommands` made, one per key in order. */
export function perKeyReplies<T>(callReplies: unknown[]): T[] {
  return (callReplies as T[][]).flat();
}
