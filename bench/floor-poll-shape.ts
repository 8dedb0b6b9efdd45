/**
 * What the floor benchmarks (bench/poll-floor.ts, bench/burst-floor.ts, bench/flow-floor.ts)
 * answer a poll with and run per poll in Redis, and how their clients authenticate: the shape of
 * ours, with nothing of ours in it.
 */
import type { ServerResponse } from 'node:http';

/** Client i's Basic credentials: an email and an API key of our length. */
export const floorAuthorization = (i: number): string =>
  `Basic ${Buffer.from(`user${i}@example.com:0123456789abcdef0123456789abcdef`).toString('base64')}`;

/** Answers with `json` and the headers ours carry, set as one flat list as ours are. */
export function answerAsOurs(res: ServerResponse, json: string): void {
  res.writeHead(200, [
    'Content-Type',
    'application/json; charset=utf-8',
    'Content-Length',
    String(Buffer.byteLength(json)),
    'X-Request-Id',
    crypto.randomUUID(),
    'X-Content-Type-Options',
    'nosniff',
    'X-RateLimit-Limit',
    '200',
    'X-RateLimit-Remaining',
    '199',
    'X-RateLimit-Reset',
    '1795781145',
  ]);
  res.end(json);
}

/** What the poll script does to a queue, on keys of this benchmark's own. */
export const POLL_LIKE = `
local fields = redis.call('HMGET', KEYS[1], 'user', 'first_id', 'last_id', 'snapshot')
redis.call('HSET', KEYS[1], 'last_access', ARGV[1])
redis.call('PEXPIRE', KEYS[1], 600000)
redis.call('PEXPIRE', KEYS[2], 600000)
redis.call('LTRIM', KEYS[2], 1, -1)
local elements = redis.call('LRANGE', KEYS[2], 0, -1)
redis.call('HSET', KEYS[1], 'waiter', 'floor')
return {0, fields[4] or '', elements, 0, 0}
`;

/** A channel message event as a client receives it (about 900 bytes of JSON). */
export const EVENT = {
  type: 'message',
  message: {
    id: 123456,
    sender_id: 1234,
    content:
      '<p>A message of an ordinary length, with a few words in it, as people write them.</p>',
    recipient_id: 4321,
    timestamp: 1795781145,
    client: 'ZulipPython',
    subject: 'load',
    topic_links: [],
    is_me_message: false,
    reactions: [],
    submessages: [],
    sender_full_name: 'Load Test User 1234',
    sender_email: 'user1234@example.com',
    sender_realm_str: 'zulip',
    display_recipient: 'channel 17',
    type: 'stream',
    stream_id: 17,
    avatar_url: null,
    content_type: 'text/html',
  },
  flags: [],
  id: 0,
};
