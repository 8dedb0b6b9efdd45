-- Polls of many queues in one script call (one per slot on a cluster), each as one poll alone
-- would run: checks the owner, marks the queue used, drops acknowledged events, reads the rest
-- and, when there are none and the caller will wait, records its wake-up channel. A queue's hash
-- fields change in one HSET. The keys' TTL is pushed back when the last push is older than the
-- refresh interval (`ttl_at`), not on every poll: the TTL is only a backstop a minute longer than
-- the idle limit, and the two PEXPIREs were a quarter of the commands a poll ran. A call costs
-- Redis more than the commands it runs, so the polls that arrive together share one.
-- A queue's registration snapshot never changes once written: it is read only for a caller that
-- does not hold it yet.
-- A caller that follows the queue (FollowedQueues) is recorded as its `follower` until
-- `follow_until` (Redis's clock, ms), and the follower it displaces is returned to be told.
-- KEYS: per queue, its hash and its event list. ARGV: now, TTL ms, TTL refresh interval ms, follow
-- ms, then per queue: user id, last acknowledged event id ('' for none), wake-up channel ('' when
-- not waiting), '1' to read the snapshot ('' when the caller holds it), follower channel ('' when
-- not following).
-- Returns per queue {-1} (no queue, or one registered before event lists), {-2} (another user's
-- queue), {-3, error} (its commands failed; the other queues' polls stand) or
-- {0, snapshot ('' when not read or not written), elements, first id, last id, displaced follower
-- ('' when none)}.
local now, ttl, refresh, follow_ms = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), ARGV[4]
local clock
local function redis_ms()
  if not clock then
    local time = redis.call('TIME')
    clock = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
  return clock
end
local function poll(hash, list, user, acked, waiter, read_snapshot, follow)
  -- One HMGET: the follower fields only for a caller that follows, the snapshot only when wanted.
  local names = {'user', 'first_id', 'last_id', 'ttl_at', 'follower', 'follow_until', 'snapshot'}
  local count = read_snapshot ~= '' and 7 or (follow ~= '' and 6 or 4)
  local fields = redis.call('HMGET', hash, unpack(names, 1, count))
  if not fields[1] or not fields[2] then return {-1} end
  if fields[1] ~= user then return {-2} end
  local changes = {'last_access', ARGV[1]}
  local displaced = ''
  if follow ~= '' then
    local was, until_ms = fields[5], fields[6]
    if was and was ~= follow and until_ms and tonumber(until_ms) > redis_ms() then
      displaced = was
    end
    changes[#changes + 1] = 'follower'
    changes[#changes + 1] = follow
    changes[#changes + 1] = 'follow_until'
    changes[#changes + 1] = redis_ms() + tonumber(follow_ms)
  end
  if not fields[4] or now - tonumber(fields[4]) >= refresh then
    redis.call('PEXPIRE', hash, ttl)
    redis.call('PEXPIRE', list, ttl)
    changes[#changes + 1] = 'ttl_at'
    changes[#changes + 1] = ARGV[1]
  end
  local first, last = tonumber(fields[2]), tonumber(fields[3])
  if acked ~= '' then
    local upto = math.min(tonumber(acked), last)
    if upto >= first then
      redis.call('LTRIM', list, upto - first + 1, -1)
      first = upto + 1
      changes[#changes + 1] = 'first_id'
      changes[#changes + 1] = first
    end
  end
  -- The list holds the events first..last: a re-poll that acknowledged all of them reads nothing.
  local elements = {}
  if first <= last then elements = redis.call('LRANGE', list, 0, -1) end
  if #elements == 0 and waiter ~= '' then
    changes[#changes + 1] = 'waiter'
    changes[#changes + 1] = waiter
  end
  redis.call('HSET', hash, unpack(changes))
  return {0, fields[7] or '', elements, first, last, displaced}
end
local replies = {}
for q = 1, #KEYS / 2 do
  local a = 5 * q
  local ok, reply = pcall(poll, KEYS[2 * q - 1], KEYS[2 * q], ARGV[a], ARGV[a + 1], ARGV[a + 2],
    ARGV[a + 3], ARGV[a + 4])
  if not ok then reply = {-3, type(reply) == 'table' and reply.err or tostring(reply)} end
  replies[q] = reply
end
return replies
