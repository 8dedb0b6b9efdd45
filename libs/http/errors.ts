/**
 * Errors are values with a stable Zulip `code`, an HTTP status and code-specific fields.
 * Every error a route can return is built by one of the factories below.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toJSON(): Record<string, unknown> {
    return { result: 'error', msg: this.message, code: this.code, ...this.extra };
  }
}

export const badRequest = (msg: string, extra: Record<string, unknown> = {}) =>
  new ApiError(400, 'BAD_REQUEST', msg, extra);

export const missingArgument = (name: string) =>
  new ApiError(400, 'REQUEST_VARIABLE_MISSING', `Missing '${name}' argument`, { var_name: name });

export const invalidJsonArgument = (name: string) =>
  new ApiError(400, 'BAD_REQUEST', `Argument "${name}" is not valid JSON.`);

export const unauthorized = (msg: string) =>
  new ApiError(401, 'UNAUTHORIZED', msg, {}, { 'WWW-Authenticate': 'Basic realm="zulip"' });

export const invalidApiKey = (msg = 'Invalid API key') => new ApiError(401, 'INVALID_API_KEY', msg);

export const userDeactivated = () =>
  new ApiError(401, 'USER_DEACTIVATED', 'Account is deactivated');

export const realmDeactivated = () =>
  new ApiError(401, 'REALM_DEACTIVATED', 'This organization has been deactivated');

export const authenticationFailed = (msg = 'Your username or password is incorrect') =>
  new ApiError(401, 'AUTHENTICATION_FAILED', msg);

export const passwordAuthDisabled = () =>
  new ApiError(
    401,
    'PASSWORD_AUTH_DISABLED',
    'Password authentication is disabled in this organization',
  );

export const nonexistentSubdomain = () =>
  new ApiError(404, 'NONEXISTENT_SUBDOMAIN', 'There is no Zulip organization at this address.');

/** Zulip answers most permission failures with 400 BAD_REQUEST; a few use 403 UNAUTHORIZED. */
export const insufficientPermission = (msg = 'Insufficient permission') => badRequest(msg);

export const notFound = (msg = 'Not Found') => new ApiError(404, 'BAD_REQUEST', msg);

/** Where Zulip refuses with 403 rather than its usual 400 (e.g. reading an uploaded file). */
export const forbidden = (msg: string) => new ApiError(403, 'BAD_REQUEST', msg);

/** A body over the route's size limit (what nginx answers with 413, in Zulip's envelope). */
export const requestTooLarge = () => new ApiError(413, 'BAD_REQUEST', 'Request body too large');

export const methodNotAllowed = () => new ApiError(405, 'BAD_REQUEST', 'Method Not Allowed');

export const rateLimited = (retryAfterSeconds: number) =>
  new ApiError(
    429,
    'RATE_LIMIT_HIT',
    'API usage exceeded rate limit',
    { 'retry-after': retryAfterSeconds },
    { 'Retry-After': String(Math.ceil(retryAfterSeconds)) },
  );

export const streamDoesNotExistById = (streamId: number) =>
  new ApiError(400, 'STREAM_DOES_NOT_EXIST', `Channel with ID '${streamId}' does not exist`, {
    stream_id: streamId,
  });

export const streamDoesNotExistByName = (name: string) =>
  new ApiError(400, 'STREAM_DOES_NOT_EXIST', `Channel '${name}' does not exist`, { stream: name });

export const badEventQueueId = (queueId: string) =>
  new ApiError(400, 'BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${queueId}`, { queue_id: queueId });

export const reactionAlreadyExists = () =>
  new ApiError(400, 'REACTION_ALREADY_EXISTS', 'Reaction already exists.');

export const reactionDoesNotExist = () =>
  new ApiError(400, 'REACTION_DOES_NOT_EXIST', "Reaction doesn't exist.");

export const invalidPushDeviceToken = () =>
  new ApiError(400, 'INVALID_PUSH_DEVICE_TOKEN', 'Device not recognized');

export const badNarrow = (desc: string) =>
  new ApiError(400, 'BAD_NARROW', `Invalid narrow operator: ${desc}`, { desc });

export const badNarrowCombination = (desc: string) =>
  new ApiError(400, 'BAD_NARROW', `Invalid narrow operator combination: ${desc}`, { desc });

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
  new ApiError(400, 'INVITATION_FAILED', msg, {
    errors,
    sent_invitations: sentInvitations,
    license_limit_reached: limits.licenseLimitReached ?? false,
    daily_limit_reached: limits.dailyLimitReached ?? false,
  });
