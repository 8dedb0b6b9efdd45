import Joi from 'joi';

/** A name an identity provider is configured under: a path segment of its login URL. */
const IDP_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/** The keys every entry of a `SOCIAL_AUTH_*_ENABLED_IDPS` map has, as Zulip writes them. */
export interface IdpEntry {
  display_name: string;
  display_icon?: string | null;
  auto_signup: boolean;
  limit_to_subdomains?: string[] | null;
}

/** The same, as the configuration carries them, with the provider's name. */
export interface IdpCommon {
  name: string;
  displayName: string;
  displayIcon: string | null;
  /** Whether a first sign-in with no account creates one (Zulip's auto_signup, default off). */
  autoSignup: boolean;
  /** Subdomains that may use it; null: every organization. */
  limitToSubdomains: string[] | null;
}

/** An entry's schema: the common keys and the method's own, nothing else. */
export function idpSchema<T extends IdpEntry>(keys: Joi.PartialSchemaMap<T>): Joi.ObjectSchema<T> {
  return Joi.object<T>({
    display_name: Joi.string().max(60).required(),
    display_icon: Joi.string()
      .uri({ scheme: ['http', 'https'], allowRelative: true })
      .allow(null),
    auto_signup: Joi.boolean().default(false),
    limit_to_subdomains: Joi.array().items(Joi.string().allow('')).allow(null),
    ...keys,
  }).unknown(false);
}

/**
 * The providers of a `SOCIAL_AUTH_*_ENABLED_IDPS` setting (`{"<name>": {...}}`, as Zulip writes
 * it), each name checked and each entry validated against `schema`; `label` names a provider in
 * the errors.
 */
export function idpEntries<T extends IdpEntry>(
  variable: string,
  label: string,
  text: string,
  schema: Joi.ObjectSchema<T>,
): [IdpCommon, T][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${variable} is not JSON`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`${variable} must be an object of ${label}s by name`);
  }
  return Object.entries(parsed).map(([name, entry]) => {
    if (!IDP_NAME.test(name)) throw new Error(`${label} name "${name}" is not [a-z0-9_-]`);
    const { value, error } = schema.validate(entry);
    if (error) throw new Error(`${label} "${name}": ${error.message}`);
    const common: IdpCommon = {
      name,
      displayName: value.display_name,
      displayIcon: value.display_icon ?? null,
      autoSignup: value.auto_signup,
      limitToSubdomains: value.limit_to_subdomains ?? null,
    };
    return [common, value];
  });
}
