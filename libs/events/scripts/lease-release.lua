-- Gives a dispatch partition's lease up if this consumer holds it. KEYS: the lease. ARGV: consumer.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
