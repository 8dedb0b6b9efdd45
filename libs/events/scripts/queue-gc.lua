-- Deletes a queue if it has been idle past the cutoff and returns {'gone', owner, realm} for the
-- caller to clean the partition's sets; a queue polled since returns {'kept', last access}, which
-- the caller writes to the access index (polls leave the index alone: one command fewer each).
-- KEYS: queue hash, event list. ARGV: cutoff.
local fields = redis.call('HMGET', KEYS[1], 'last_access', 'user', 'realm')
if fields[1] and tonumber(fields[1]) > tonumber(ARGV[1]) then return {'kept', fields[1]} end
redis.call('DEL', KEYS[1], KEYS[2])
return {'gone', fields[2] or '', fields[3] or ''}
