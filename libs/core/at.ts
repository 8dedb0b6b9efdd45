/**
 * `list[i]` where the caller knows `i` is in range (an index it counted or grouped itself), for
 * code held to noUncheckedIndexedAccess (tsconfig.strict.json): a wrong index throws here instead
 * of passing `undefined` on. Not for lists whose elements may be `undefined`.
 */
export function at<T>(list: ArrayLike<T>, i: number): T {
  const value = list[i];
  if (value === undefined) throw new RangeError(`index ${i} outside a list of ${list.length}`);
  return value;
}
