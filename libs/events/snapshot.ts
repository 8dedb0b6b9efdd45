/**
 * Whether a committed transaction's effects are in a PostgreSQL snapshot, given as the text of
 * `pg_current_snapshot()` ("xmin:xmax:xip1,xip2,..."): it finished before xmin, or it is below
 * xmax and was not in progress when the snapshot was taken (PostgreSQL's pg_visible_in_snapshot).
 * Only transactions that committed are asked about: aborted ones leave no outbox rows.
 */
export function committedBefore(snapshot: string, xid: bigint): boolean {
  const [xmin, xmax, inProgress] = snapshot.split(':');
  if (xid < BigInt(xmin)) return true;
  if (xid >= BigInt(xmax)) return false;
  return !(inProgress ?? '')
    .split(',')
    .filter(Boolean)
    .some((id) => BigInt(id) === xid);
}
