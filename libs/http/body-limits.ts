/**
 * Limits every request is held to, whoever sends it. Uploads (`POST /user_uploads`,
 * `POST /realm/emoji/{name}`, `POST /users/me/avatar`, `POST /realm/icon`) parse their own bodies and follow their file size settings instead.
 */

/** A form, JSON or multipart body (its fields, not uploaded files), unless the route says more. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Routes whose bodies may be larger: a bot may keep 10,000,000 characters in `/bot_storage`,
 * which Zulip accepts in one request up to its 25 MiB front-end limit.
 */
const LARGER_BODIES: { method: string; path: RegExp; bytes: number }[] = [
  { method: 'PUT', path: /^\/(api\/v1|json)\/bot_storage$/, bytes: 25 * 1024 * 1024 },
];

/** The body size a request may have, by route. */
export function bodyLimit(method: string, path: string): number {
  return (
    LARGER_BODIES.find((r) => r.method === method && r.path.test(path))?.bytes ?? MAX_BODY_BYTES
  );
}

/** Every limit bodyLimit may answer, so each gets its body parsers once. */
export const BODY_LIMITS = [...new Set([MAX_BODY_BYTES, ...LARGER_BODIES.map((r) => r.bytes)])];

/** Parameters in one form body (query string included). */
export const MAX_PARAMETERS = 1000;

/**
 * Nesting of a JSON parameter or body. Zulip's JSON parser stops at 1024 levels; no documented
 * parameter nests more than a few, and validating deep values costs stack and time.
 */
export const MAX_JSON_DEPTH = 32;

/** What a parameter value holds that no handler may see. */
export type ValueProblem = 'too-deep' | 'nul' | null;

/**
 * Walks a decoded value (iteratively: deep input cannot overflow the stack) for nesting past
 * MAX_JSON_DEPTH and for NUL characters, which PostgreSQL text cannot store.
 */
export function valueProblem(value: unknown): ValueProblem {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (typeof node === 'string') {
      if (node.includes('\u0000')) return 'nul';
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) return 'too-deep';
    for (const [key, child] of Object.entries(node)) stack.push([key, depth], [child, depth + 1]);
  }
  return null;
}
