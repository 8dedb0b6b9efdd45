-- Appends, for each of several queues in turn, the events one domain-stream entry produced for it.
-- A queue is fed by one partition, in stream order, so an entry at or below the queue's `mark` was
-- appended already (a dispatcher redelivering after a crash) and is skipped; marks are compared as
-- strings, in the fixed-width form of `markOf` (queue-hash.ts). Each stored element comes once
-- however many queues receive it (a message to a big channel is one text for most of them). A
-- list just created gets the queue's TTL. Four commands a queue at most: Redis runs this for
-- 10,000 queues at once.
-- KEYS: queue hash and event list of each queue. ARGV: TTL ms, the number of distinct elements K,
-- the K elements, then per queue: mark ('' for none), count n, n indexes (0-based) into the
-- elements.
-- Returns per queue {last id, waiter channel or '', follower channel or ''}; last id -1: no such
-- queue, -2: already appended. A follower (see queue-poll.lua) is reported on every append until
-- its time is up, and stays.
local at = tonumber(ARGV[2]) + 3
local out = {}
local clock
for q = 1, #KEYS, 2 do
  local hash, events = KEYS[q], KEYS[q + 1]
  local mark, n = ARGV[at], tonumber(ARGV[at + 1])
  local first = at + 2
  at = first + n
  local last, waiter, follower = -1, '', ''
  local fields =
    redis.call('HMGET', hash, 'last_id', 'first_id', 'mark', 'waiter', 'follower', 'follow_until')
  if fields[5] and fields[6] then
    if not clock then
      local time = redis.call('TIME')
      clock = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    end
    if tonumber(fields[6]) > clock then follower = fields[5] end
  end
  if fields[1] and fields[2] then
    if mark ~= '' and fields[3] and mark <= fields[3] then
      last = -2
    else
      local elements = {}
      for i = first, first + n - 1 do elements[#elements + 1] = ARGV[tonumber(ARGV[i]) + 3] end
      if redis.call('RPUSH', events, unpack(elements)) == n then
        redis.call('PEXPIRE', events, ARGV[1])
      end
      last = tonumber(fields[1]) + n
      waiter = fields[4] or ''
      if mark ~= '' then redis.call('HSET', hash, 'last_id', last, 'mark', mark, 'waiter', '')
      else redis.call('HSET', hash, 'last_id', last, 'waiter', '') end
    end
  end
  out[#out + 1] = last
  out[#out + 1] = waiter
  out[#out + 1] = follower
end
return out
