/**
 * Limits every request is held to, whoever sends it. Uploads (`POST /user_uploads`,
 * `POST /realm/emoji/{name}`) parse their own bodies and follow their file size settings instead.
 */

/** A form, JSON or multipart body (its fields, not uploaded files). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Parameters in one form body (query string included). */
export const MAX_PARAMETERS = 1000;

/**
 * Nesting of a JSON parameter or body. Zulip's JSON parser stops at 1024 levels; no documented
 * parameter nests more than a few, and validating deep values costs stack and time.
 */
export const MAX_JSON_DEPTH = 32;

/** Whether `value` nests deeper than MAX_JSON_DEPTH (iterative: deep input cannot overflow the stack). */
export function nestsTooDeep(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}
