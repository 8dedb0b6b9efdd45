/** A name an identity provider is configured under: a path segment of its login URL. */
const IDP_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/**
 * The providers of a `SOCIAL_AUTH_*_ENABLED_IDPS` setting (`{"<name>": {...}}`, as Zulip writes
 * it), each entry as given, its name checked; `label` names a provider in the errors.
 */
export function idpEntries(variable: string, label: string, text: string): [string, unknown][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${variable} is not JSON`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`${variable} must be an object of ${label}s by name`);
  }
  const entries = Object.entries(parsed);
  for (const [name] of entries) {
    if (!IDP_NAME.test(name)) throw new Error(`${label} name "${name}" is not [a-z0-9_-]`);
  }
  return entries;
}
