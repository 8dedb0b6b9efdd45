/**
 * How a request failed, in words that are not HTTP's: libs/http turns each kind into a status.
 * `invalid` is Zulip's usual answer, permission failures included.
 */
export type FailureKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'too_large'
  | 'rate_limited'
  | 'internal'
  | 'unavailable';

/**
 * Errors are values with a stable Zulip `code`, a kind and code-specific fields. Every error a
 * request can end with is built by one of the factories below.
 */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly kind: FailureKind = 'invalid',
  ) {
    super(message);
  }

  toJSON(): Record<string, unknown> {
    return { result: 'error', msg: this.message, code: this.code, ...this.extra };
  }
}

export const badRequest = (msg: string, extra: Record<string, unknown> = {}) =>
  new ApiError('BAD_REQUEST', msg, extra);

export const missingArgument = (name: string) =>
  new ApiError('REQUEST_VARIABLE_MISSING', `Missing '${name}' argument`, { var_name: name });

export const invalidJsonArgument = (name: string) =>
  new ApiError('BAD_REQUEST', `Argument "${name}" is not valid JSON.`);

/** A credential missing, malformed or for another organization; libs/http adds the Basic challenge. */
export const unauthorized = (msg: string) =>
  new ApiError('UNAUTHORIZED', msg, {}, 'unauthenticated');

export const invalidApiKey = (msg = 'Invalid API key') =>
  new ApiError('INVALID_API_KEY', msg, {}, 'unauthenticated');

export const userDeactivated = () =>
  new ApiError('USER_DEACTIVATED', 'Account is deactivated', {}, 'unauthenticated');

export const realmDeactivated = () =>
  new ApiError(
    'REALM_DEACTIVATED',
    'This organization has been deactivated',
    {},
    'unauthenticated',
  );

export const authenticationFailed = (msg = 'Your username or password is incorrect') =>
  new ApiError('AUTHENTICATION_FAILED', msg, {}, 'unauthenticated');

export const passwordAuthDisabled = () =>
  new ApiError(
    'PASSWORD_AUTH_DISABLED',
    'Password authentication is disabled in this organization',
    {},
    'unauthenticated',
  );

export const nonexistentSubdomain = () =>
  new ApiError(
    'NONEXISTENT_SUBDOMAIN',
    'There is no Zulip organization at this address.',
    {},
    'not_found',
  );

/** Zulip answers most permission failures as invalid requests; a few are `forbidden`. */
export const insufficientPermission = (msg = 'Insufficient permission') => badRequest(msg);

export const notFound = (msg = 'Not Found') => new ApiError('BAD_REQUEST', msg, {}, 'not_found');

/** Where Zulip refuses as forbidden rather than invalid (e.g. reading an uploaded file). */
export const forbidden = (msg: string) => new ApiError('BAD_REQUEST', msg, {}, 'forbidden');

/** A body over the route's size limit (what nginx refuses, in Zulip's envelope). */
export const requestTooLarge = () =>
  new ApiError('BAD_REQUEST', 'Request body too large', {}, 'too_large');

export const rateLimited = (retryAfterSeconds: number) =>
  new ApiError(
    'RATE_LIMIT_HIT',
    'API usage exceeded rate limit',
    { 'retry-after': retryAfterSeconds },
    'rate_limited',
  );

/** A bug: the only failure whose cause the caller is not told. */
export const internalError = () =>
  new ApiError('INTERNAL_SERVER_ERROR', 'Internal server error', {}, 'internal');

/**
 * PostgreSQL or Redis cannot be reached (restarting, failing over): nothing is wrong with the
 * request, which may be sent again shortly. Zulip's code for a server that cannot serve yet.
 */
export const serverNotReady = () =>
  new ApiError(
    'SERVER_NOT_READY',
    'The server is temporarily unavailable; try again shortly',
    {},
    'unavailable',
  );

/**
 * The server is past its capacity and refuses the request before doing any of it, so that what it
 * accepts is still answered in time; the client may send it again after `retryAfterSeconds`.
 */
export const serverOverloaded = (retryAfterSeconds: number) =>
  new ApiError(
    'SERVER_OVERLOADED',
    'The server is overloaded; try again shortly',
    { 'retry-after': retryAfterSeconds },
    'unavailable',
  );

/**
 * A transaction lost to concurrent ones on the same rows (a deadlock or a serialization failure)
 * as many times as it was run again: nothing was changed, and the client may send it again
 * after `retryAfterSeconds`. Clients treat it as the overload it is.
 */
export const writeConflict = (retryAfterSeconds: number) =>
  new ApiError(
    'SERVER_OVERLOADED',
    'Too many concurrent changes to the same data; try again shortly',
    { 'retry-after': retryAfterSeconds },
    'unavailable',
  );

export const streamDoesNotExistById = (streamId: number) =>
  new ApiError('STREAM_DOES_NOT_EXIST', `Channel with ID '${streamId}' does not exist`, {
    stream_id: streamId,
  });

export const streamDoesNotExistByName = (name: string) =>
  new ApiError('STREAM_DOES_NOT_EXIST', `Channel '${name}' does not exist`, { stream: name });

export const badEventQueueId = (queueId: string) =>
  new ApiError('BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${queueId}`, { queue_id: queueId });

export const reactionAlreadyExists = () =>
  new ApiError('REACTION_ALREADY_EXISTS', 'Reaction already exists.');

export const reactionDoesNotExist = () =>
  new ApiError('REACTION_DOES_NOT_EXIST', "Reaction doesn't exist.");

export const badNarrow = (desc: string) =>
  new ApiError('BAD_NARROW', `Invalid narrow operator: ${desc}`, { desc });

export const badNarrowCombination = (desc: string) =>
  new ApiError('BAD_NARROW', `Invalid narrow operator combination: ${desc}`, { desc });

/** Zulip's IncompatibleParametersError: `parameters` lists them, comma-separated. */
export const incompatibleParameters = (names: string[]) =>
  badRequest(`Unsupported parameter combination: ${names.join(', ')}`, {
    parameters: names.join(', '),
  });

/** Some invitations could not be sent; `sentInvitations` says whether the others were. */
export const invitationFailed = (
  msg: string,
  errors: [string, string, boolean][],
  sentInvitations: boolean,
  limits: { dailyLimitReached?: boolean; licenseLimitReached?: boolean } = {},
) =>
  new ApiError('INVITATION_FAILED', msg, {
    errors,
    sent_invitations: sentInvitations,
    license_limit_reached: limits.licenseLimitReached ?? false,
    daily_limit_reached: limits.dailyLimitReached ?? false,
  });
