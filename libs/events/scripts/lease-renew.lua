-- Takes or renews a dispatch partition's lease: renewed when this consumer holds it, taken when
-- nobody does. KEYS: the lease. ARGV: consumer, lease ms. Returns 1 when the consumer holds it.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) and 1 or 0
