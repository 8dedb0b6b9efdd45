-- Deletes a queue if it has been idle past the cutoff and returns {'gone', owner, realm, message
-- ids} for the caller to clean the partition's sets and to notify the owner of the messages the
-- queue still held (Zulip's missedmessage_hook); a queue polled since returns {'kept', last
-- access}, which the caller writes to the access index (polls leave the index alone: one command
-- fewer each). Only the elements that name a message are decoded.
-- KEYS: queue hash, event list. ARGV: cutoff.
local fields = redis.call('HMGET', KEYS[1], 'last_access', 'user', 'realm')
if fields[1] and tonumber(fields[1]) > tonumber(ARGV[1]) then return {'kept', fields[1]} end
local messages = {}
-- A queue from before event lists keeps its events in a stream: nothing to read there.
local elements = {}
if redis.call('TYPE', KEYS[2]).ok == 'list' then elements = redis.call('LRANGE', KEYS[2], 0, -1) end
for _, element in ipairs(elements) do
  local space = string.find(element, ' ', 1, true)
  if space and string.find(element, '"message"', space, true) then
    local ok, event = pcall(cjson.decode, string.sub(element, space + 1))
    if ok and type(event) == 'table' and event.type == 'message'
        and type(event.message) == 'table' and event.message.id then
      messages[#messages + 1] = tostring(event.message.id)
    end
  end
end
redis.call('DEL', KEYS[1], KEYS[2])
return {'gone', fields[2] or '', fields[3] or '', messages}
