/** The properties of `source` named in `names` that hold a value (e.g. one group of parameters). */
export function pickDefined<T, K extends keyof T>(
  source: T,
  names: readonly K[],
): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const name of names) if (source[name] !== undefined) out[name] = source[name];
  return out;
}
