import type { PushBouncerConfig } from '../../core/config';
import { SERVER_VERSION } from '../version';
import type { PushKindCode } from './push-kind';

/**
 * The client side of Zulip's push notification bouncer API (its `zilencer` app, under
 * /api/v1/remotes/): the server authenticates with HTTP Basic as ZULIP_ORG_ID:ZULIP_ORG_KEY;
 * device registration is form-encoded, notifications and test notifications are JSON bodies.
 */

/** Zulip's PushBouncerSession timeout: the bouncer must answer a request within 30 seconds. */
const TIMEOUT_MS = 30_000;

/** How a bouncer call failed: the kind of failure, Zulip's error code and the HTTP status. */
export interface BouncerFailure {
  kind: 'retry' | 'rejected';
  code?: string | null;
  status?: number | null;
}

/**
 * A failed bouncer call. `retry`: the bouncer could not be reached or failed (network error,
 * timeout, 5xx): try again later. `rejected`: the bouncer refused the request (4xx), with
 * Zulip's error `code` and `msg`; sending it again would be refused again.
 */
export class BouncerError extends Error {
  readonly kind: 'retry' | 'rejected';
  readonly code: string | null;
  readonly status: number | null;

  constructor(message: string, { kind, code = null, status = null }: BouncerFailure) {
    super(message);
    this.kind = kind;
    this.code = code;
    this.status = status;
  }
}

/** Who a device belongs to, as the bouncer knows them (servers 8.0+ send both ids). */
export interface BouncerIdentity {
  userId: number;
  userUuid: string;
  realmUuid: string;
}

export interface BouncerDevice {
  kind: PushKindCode;
  token: string;
  /** Required by the bouncer for APNs tokens. */
  iosAppId: string | null;
}

/** The body of `POST /api/v1/remotes/push/notify` (zilencer's RemoteServerNotificationPayload). */
export interface NotifyRequest {
  user_id: number;
  user_uuid: string;
  realm_uuid: string;
  gcm_payload: Record<string, unknown>;
  apns_payload: Record<string, unknown>;
  gcm_options: Record<string, unknown>;
  /** The tokens this server believes are registered, so the bouncer can say which it deleted. */
  android_devices: string[];
  apple_devices: string[];
}

export interface NotifyResponse {
  total_android_devices: number;
  total_apple_devices: number;
  /** Tokens the bouncer no longer has (the push service rejected them): delete them here too. */
  deleted_devices: { android_devices: string[]; apple_devices: string[] };
  realm: { can_push: boolean; expected_end_timestamp: number | null } | null;
}

/** One call to the bouncer: its path under /api/v1/remotes/, and a form or JSON body. */
interface BouncerRequest {
  path: string;
  body: { form: Record<string, string> } | { json: unknown };
  /** HTTP Basic with the server's ZULIP_ORG_ID and key; only registration goes without. */
  authenticated?: boolean;
}

async function call(
  bouncer: PushBouncerConfig,
  { path, body, authenticated = true }: BouncerRequest,
): Promise<Record<string, unknown>> {
  const url = `${bouncer.url}/api/v1/remotes/${path}`;
  const headers: Record<string, string> = { 'user-agent': `ZulipServer/${SERVER_VERSION}` };
  if (authenticated) {
    headers.authorization = `Basic ${Buffer.from(`${bouncer.orgId}:${bouncer.orgKey}`).toString('base64')}`;
  }
  let payload: string;
  if ('form' in body) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = new URLSearchParams(body.form).toString();
  } else {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  }
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers,
      body: payload,
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: 'error',
    });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new BouncerError(`push bouncer unreachable: ${reason}`, { kind: 'retry' });
  }
  const text = await response.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Non-JSON answers (a proxy's error page) are classified by status alone.
  }
  if (response.status >= 500 || response.status === 429) {
    throw new BouncerError(`push bouncer answered ${response.status}`, {
      kind: 'retry',
      status: response.status,
    });
  }
  if (response.status >= 400 || parsed.result !== 'success') {
    const msg = typeof parsed.msg === 'string' ? parsed.msg : `HTTP ${response.status}`;
    const code = typeof parsed.code === 'string' ? parsed.code : null;
    throw new BouncerError(`push bouncer refused: ${msg}`, {
      kind: 'rejected',
      code,
      status: response.status,
    });
  }
  return parsed;
}

/**
 * `POST server/register` (Zulip's `manage.py register_server`): registers ZULIP_ORG_ID with its
 * key, or updates the registration's host name and contact email. Unauthenticated, as in Zulip:
 * the key is in the form. Returns whether the registration was created.
 */
export async function registerServer(
  bouncer: PushBouncerConfig,
  server: { hostname: string; contactEmail: string },
): Promise<{ created: boolean }> {
  const answer = await call(bouncer, {
    path: 'server/register',
    body: {
      form: {
        zulip_org_id: bouncer.orgId,
        zulip_org_key: bouncer.orgKey,
        hostname: server.hostname,
        contact_email: server.contactEmail,
      },
    },
    authenticated: false,
  });
  return { created: answer.created === true };
}

const identityFields = (who: BouncerIdentity) => ({
  user_id: String(who.userId),
  user_uuid: who.userUuid,
  realm_uuid: who.realmUuid,
});

/** `POST push/register`: the bouncer will deliver this user's notifications to the device. */
export async function registerDevice(
  bouncer: PushBouncerConfig,
  who: BouncerIdentity,
  device: BouncerDevice,
): Promise<void> {
  await call(bouncer, {
    path: 'push/register',
    body: {
      form: {
        ...identityFields(who),
        token: device.token,
        token_kind: String(device.kind),
        ...(device.iosAppId !== null ? { ios_app_id: device.iosAppId } : {}),
      },
    },
  });
}

/** `POST push/unregister`; a token the bouncer does not have is already what was asked for. */
export async function unregisterDevice(
  bouncer: PushBouncerConfig,
  who: BouncerIdentity,
  device: Pick<BouncerDevice, 'kind' | 'token'>,
): Promise<void> {
  try {
    await call(bouncer, {
      path: 'push/unregister',
      body: {
        form: { ...identityFields(who), token: device.token, token_kind: String(device.kind) },
      },
    });
  } catch (err) {
    if (
      err instanceof BouncerError &&
      err.kind === 'rejected' &&
      /does not exist/.test(err.message)
    ) {
      return;
    }
    throw err;
  }
}

/** `POST push/notify`: one notification (a message, or a removal) to every device of a user. */
export async function notify(
  bouncer: PushBouncerConfig,
  request: NotifyRequest,
): Promise<NotifyResponse> {
  const answer = await call(bouncer, { path: 'push/notify', body: { json: request } });
  const deleted = (answer.deleted_devices ?? {}) as Partial<NotifyResponse['deleted_devices']>;
  return {
    total_android_devices: Number(answer.total_android_devices ?? 0),
    total_apple_devices: Number(answer.total_apple_devices ?? 0),
    deleted_devices: {
      android_devices: deleted.android_devices ?? [],
      apple_devices: deleted.apple_devices ?? [],
    },
    realm: (answer.realm ?? null) as NotifyResponse['realm'],
  };
}

/** A test notification for one of a user's devices, from the base payload of every push. */
export interface TestNotification {
  who: BouncerIdentity;
  device: Pick<BouncerDevice, 'kind' | 'token'>;
  basePayload: Record<string, unknown>;
}

/** `POST push/test_notification`: the bouncer formats a test notification for one device. */
export async function sendTestNotification(
  bouncer: PushBouncerConfig,
  { who, device, basePayload }: TestNotification,
): Promise<void> {
  await call(bouncer, {
    path: 'push/test_notification',
    body: {
      json: {
        token: device.token,
        token_kind: device.kind,
        user_id: who.userId,
        user_uuid: who.userUuid,
        realm_uuid: who.realmUuid,
        base_payload: basePayload,
      },
    },
  });
}
