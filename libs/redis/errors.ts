/** ioredis's errors for a Redis it cannot reach, by class name or message. */
const UNREACHABLE_NAMES = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError']);
const UNREACHABLE_MESSAGES =
  /^(Connection is closed\.|None of startup nodes is available|Stream isn't writeable|LOADING |MASTERDOWN |CLUSTERDOWN )/;

/**
 * Whether a failure is Redis being unreachable rather than the command: down or restarting (the
 * command ran out of retries, or the connection closed under it), loading its data after a
 * restart, or a cluster without a master for the slot.
 */
export function redisUnreachable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return UNREACHABLE_NAMES.has(err.name) || UNREACHABLE_MESSAGES.test(err.message);
}
