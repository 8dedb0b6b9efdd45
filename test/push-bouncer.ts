import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for Zulip's push notification bouncer on loopback. It checks every request
 * against what zilencer accepts (authentication, form or JSON body, field names and types,
 * the payload shapes Zulip's mobile apps read) and answers as zilencer does. A request that
 * breaks the format is answered 400 and recorded in `problems`, which tests expect empty.
 */

export interface RegisteredDevice {
  userUuid: string;
  userId: number | null;
  realmUuid: string | null;
  kind: 1 | 2;
  token: string;
  iosAppId: string | null;
}

export interface DeliveredNotification {
  userUuid: string;
  realmUuid: string;
  gcm: Record<string, unknown>;
  apns: Record<string, unknown>;
  gcmOptions: Record<string, unknown>;
  /** The devices the bouncer delivered it to (tokens it has for the user). */
  tokens: string[];
}

export interface TestNotification {
  token: string;
  kind: number;
  basePayload: Record<string, unknown>;
}

export interface PushBouncerStandIn {
  url: string;
  orgId: string;
  orgKey: string;
  /** Environment a test context needs to use this bouncer. */
  env: Record<string, string>;
  devices: RegisteredDevice[];
  notifications: DeliveredNotification[];
  tests: TestNotification[];
  /** The host name the server registered with (server/register); null before. */
  registeredHost: string | null;
  /** Every request, by path, in order. */
  requests: { path: string; ok: boolean }[];
  problems: string[];
  /** Answer the next N requests with 503 (a bouncer that is down). */
  failNext: number;
  /** Tokens refused at registration (APNs/FCM said they are invalid). */
  rejectTokens: Set<string>;
  /** Registered tokens the push service rejects at delivery: the bouncer deletes them. */
  deadTokens: Set<string>;
  /** The `realm` part of push/notify answers: whether the organization may push (zilencer's can_push). */
  realmAnswer: { can_push: boolean; expected_end_timestamp: number | null };
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const APP_ID = /^[.a-zA-Z0-9-]+$/;

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

class FormatProblem extends Error {}
const must = (ok: boolean, problem: string) => {
  if (!ok) throw new FormatProblem(problem);
};
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringList = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** zilencer's Json[int] form fields: JSON text of an integer. */
function jsonInt(form: URLSearchParams, name: string): number | null {
  const raw = form.get(name);
  if (raw === null) return null;
  must(/^-?\d+$/.test(raw), `${name} is not a JSON integer: ${raw}`);
  return Number(raw);
}

function checkFields(got: string[], allowed: string[], where: string) {
  for (const name of got) must(allowed.includes(name), `${where}: unexpected field ${name}`);
}

function checkToken(token: string | null, kind: number | null, where: string) {
  must(!!token && token.length <= 4096, `${where}: empty or too long token`);
  must(kind === 1 || kind === 2, `${where}: token_kind ${kind} is neither 1 (APNs) nor 2 (FCM)`);
  if (kind === 1) must(/^[0-9a-fA-F]+$/.test(token ?? ''), `${where}: APNs token not hex`);
}

function checkIdentity(userId: unknown, userUuid: unknown, realmUuid: unknown, where: string) {
  must(userId !== null || userUuid !== null, `${where}: missing user_id or user_uuid`);
  if (userUuid !== null)
    must(typeof userUuid === 'string' && UUID.test(userUuid), `${where}: bad user_uuid`);
  if (realmUuid !== null) {
    must(typeof realmUuid === 'string' && UUID.test(realmUuid), `${where}: bad realm_uuid`);
    must(userUuid !== null, `${where}: realm_uuid without user_uuid`);
  }
}

/** The fields every payload of Zulip's get_base_payload carries. */
function checkBase(p: Record<string, unknown>, where: string) {
  for (const key of ['server', 'realm_uri', 'realm_url', 'realm_name']) {
    must(typeof p[key] === 'string', `${where}: ${key} missing`);
  }
  must(Number.isInteger(p.realm_id), `${where}: realm_id missing`);
  must(Number.isInteger(p.user_id), `${where}: user_id missing`);
}

function checkMessageFacts(p: Record<string, unknown>, where: string) {
  checkBase(p, where);
  must(Number.isInteger(p.sender_id), `${where}: sender_id`);
  must(typeof p.sender_email === 'string', `${where}: sender_email`);
  must(Number.isInteger(p.time), `${where}: time`);
  must(p.recipient_type === 'stream' || p.recipient_type === 'private', `${where}: recipient_type`);
  if (p.recipient_type === 'stream') {
    must(typeof p.stream === 'string' && Number.isInteger(p.stream_id), `${where}: stream`);
    must(typeof p.topic === 'string', `${where}: topic`);
  } else if (p.pm_users !== undefined) {
    must(typeof p.pm_users === 'string' && /^\d+(,\d+)+$/.test(p.pm_users), `${where}: pm_users`);
  }
}

function checkGcm(p: Record<string, unknown>) {
  if (p.event === 'message') {
    checkMessageFacts(p, 'gcm_payload');
    must(Number.isInteger(p.zulip_message_id), 'gcm_payload: zulip_message_id');
    must(typeof p.content === 'string', 'gcm_payload: content');
    must(typeof p.content_truncated === 'boolean', 'gcm_payload: content_truncated');
    must(typeof p.sender_full_name === 'string', 'gcm_payload: sender_full_name');
    must(typeof p.sender_avatar_url === 'string', 'gcm_payload: sender_avatar_url');
  } else if (p.event === 'remove') {
    checkBase(p, 'gcm_payload');
    must(
      typeof p.zulip_message_ids === 'string' && /^\d+(,\d+)*$/.test(p.zulip_message_ids),
      'gcm_payload: zulip_message_ids',
    );
  } else must(false, `gcm_payload: event ${String(p.event)}`);
}

function checkApns(p: Record<string, unknown>, event: unknown) {
  must(isObject(p.custom) && isObject(p.custom.zulip), 'apns_payload: custom.zulip');
  const zulip = (p.custom as { zulip: Record<string, unknown> }).zulip;
  must(Number.isInteger(p.badge), 'apns_payload: badge');
  if (event === 'message') {
    must(isObject(p.alert), 'apns_payload: alert');
    const alert = p.alert as Record<string, unknown>;
    for (const key of ['title', 'subtitle', 'body']) {
      must(typeof alert[key] === 'string', `apns_payload: alert.${key}`);
    }
    must(p.sound === 'default', 'apns_payload: sound');
    checkMessageFacts(zulip, 'apns_payload.custom.zulip');
    must(
      Array.isArray(zulip.message_ids) && zulip.message_ids.every(Number.isInteger),
      'apns_payload: message_ids',
    );
  } else {
    must(zulip.event === 'remove', 'apns_payload: event');
    checkBase(zulip, 'apns_payload.custom.zulip');
    must(typeof zulip.zulip_message_ids === 'string', 'apns_payload: zulip_message_ids');
  }
}

export async function startPushBouncer(): Promise<PushBouncerStandIn> {
  const orgId = randomUUID();
  const orgKey = randomUUID().replace(/-/g, '') + randomUUID().replace(/-/g, '');
  const bouncer: PushBouncerStandIn = {
    url: '',
    orgId,
    orgKey,
    env: {},
    registeredHost: null,
    devices: [],
    notifications: [],
    tests: [],
    requests: [],
    problems: [],
    failNext: 0,
    rejectTokens: new Set(),
    deadTokens: new Set(),
    realmAnswer: { can_push: true, expected_end_timestamp: null },
    close: async () => undefined,
  };
  const answer = (res: ServerResponse, status: number, body: Record<string, unknown>) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, msg: string, code = 'BAD_REQUEST') =>
    answer(res, status, { result: 'error', msg, code });

  function handle(path: string, contentType: string, body: string, res: ServerResponse) {
    const isForm = contentType.startsWith('application/x-www-form-urlencoded');
    const isJson = contentType.startsWith('application/json');
    const owned = (d: RegisteredDevice, uuid: unknown) => d.userUuid === uuid;
    switch (path) {
      case 'server/register': {
        must(isForm, 'server/register: not form-encoded');
        const form = new URLSearchParams(body);
        const allowed = [
          'zulip_org_id',
          'zulip_org_key',
          'hostname',
          'contact_email',
          'new_org_key',
        ];
        checkFields([...form.keys()], allowed, 'server/register');
        must(UUID.test(form.get('zulip_org_id') ?? ''), 'server/register: zulip_org_id');
        must(/^[a-z0-9.-]+(:\d+)?$/i.test(form.get('hostname') ?? ''), 'server/register: hostname');
        must(
          /^[^@\s]+@[^@\s]+$/.test(form.get('contact_email') ?? ''),
          'server/register: contact_email',
        );
        if (form.get('zulip_org_id') !== orgId || form.get('zulip_org_key') !== orgKey) {
          return error(
            res,
            401,
            'Zulip server auth failure: key does not match',
            'INVALID_ZULIP_SERVER',
          );
        }
        const created = bouncer.registeredHost === null;
        bouncer.registeredHost = form.get('hostname');
        return answer(res, 200, { result: 'success', msg: '', created });
      }
      case 'push/register': {
        must(isForm, 'push/register: not form-encoded');
        const form = new URLSearchParams(body);
        const allowed = ['user_id', 'user_uuid', 'realm_uuid', 'token', 'token_kind', 'ios_app_id'];
        checkFields([...form.keys()], allowed, 'push/register');
        const kind = jsonInt(form, 'token_kind');
        const token = form.get('token');
        checkToken(token, kind, 'push/register');
        const userId = jsonInt(form, 'user_id');
        checkIdentity(userId, form.get('user_uuid'), form.get('realm_uuid'), 'push/register');
        const appId = form.get('ios_app_id');
        if (kind === 1) must(appId !== null && APP_ID.test(appId), 'push/register: ios_app_id');
        if (bouncer.rejectTokens.has(token as string)) {
          return error(res, 400, kind === 1 ? 'Invalid APNS token' : 'Invalid FCM token');
        }
        const userUuid = form.get('user_uuid') as string;
        if (
          !bouncer.devices.some((d) => owned(d, userUuid) && d.token === token && d.kind === kind)
        ) {
          bouncer.devices.push({
            userUuid,
            userId,
            realmUuid: form.get('realm_uuid'),
            kind: kind as 1 | 2,
            token: token as string,
            iosAppId: appId,
          });
        }
        return answer(res, 200, { result: 'success', msg: '' });
      }
      case 'push/unregister': {
        must(isForm, 'push/unregister: not form-encoded');
        const form = new URLSearchParams(body);
        const allowed = ['user_id', 'user_uuid', 'realm_uuid', 'token', 'token_kind'];
        checkFields([...form.keys()], allowed, 'push/unregister');
        const kind = jsonInt(form, 'token_kind');
        const token = form.get('token');
        checkToken(token, kind, 'push/unregister');
        checkIdentity(
          jsonInt(form, 'user_id'),
          form.get('user_uuid'),
          form.get('realm_uuid'),
          'push/unregister',
        );
        const before = bouncer.devices.length;
        bouncer.devices = bouncer.devices.filter(
          (d) => !(owned(d, form.get('user_uuid')) && d.token === token && d.kind === kind),
        );
        if (bouncer.devices.length === before) return error(res, 400, 'Token does not exist');
        return answer(res, 200, { result: 'success', msg: '' });
      }
      case 'push/notify': {
        must(isJson, 'push/notify: not a JSON body');
        const p = JSON.parse(body) as Record<string, unknown>;
        const allowed = [
          'user_id',
          'user_uuid',
          'realm_uuid',
          'gcm_payload',
          'apns_payload',
          'gcm_options',
          'android_devices',
          'apple_devices',
        ];
        checkFields(Object.keys(p), allowed, 'push/notify');
        checkIdentity(p.user_id ?? null, p.user_uuid ?? null, p.realm_uuid ?? null, 'push/notify');
        must(p.user_id === undefined || Number.isInteger(p.user_id), 'push/notify: user_id');
        for (const key of ['gcm_payload', 'apns_payload', 'gcm_options']) {
          must(isObject(p[key]), `push/notify: ${key} is not an object`);
        }
        must(
          isStringList(p.android_devices) && isStringList(p.apple_devices),
          'push/notify: device lists',
        );
        const gcm = p.gcm_payload as Record<string, unknown>;
        checkGcm(gcm);
        checkApns(p.apns_payload as Record<string, unknown>, gcm.event);
        const mine = bouncer.devices.filter((d) => owned(d, p.user_uuid));
        const dead = mine.filter((d) => bouncer.deadTokens.has(d.token));
        bouncer.devices = bouncer.devices.filter((d) => !dead.includes(d));
        const alive = mine.filter((d) => !dead.includes(d));
        bouncer.notifications.push({
          userUuid: p.user_uuid as string,
          realmUuid: p.realm_uuid as string,
          gcm,
          apns: p.apns_payload as Record<string, unknown>,
          gcmOptions: p.gcm_options as Record<string, unknown>,
          tokens: alive.map((d) => d.token),
        });
        const have = (kind: number) =>
          new Set(
            bouncer.devices
              .filter((d) => owned(d, p.user_uuid) && d.kind === kind)
              .map((d) => d.token),
          );
        return answer(res, 200, {
          result: 'success',
          msg: '',
          total_android_devices: alive.filter((d) => d.kind === 2).length,
          total_apple_devices: alive.filter((d) => d.kind === 1).length,
          deleted_devices: {
            android_devices: (p.android_devices as string[]).filter((t) => !have(2).has(t)),
            apple_devices: (p.apple_devices as string[]).filter((t) => !have(1).has(t)),
          },
          realm: bouncer.realmAnswer,
        });
      }
      case 'push/test_notification': {
        must(isJson, 'push/test_notification: not a JSON body');
        const p = JSON.parse(body) as Record<string, unknown>;
        const allowed = [
          'token',
          'token_kind',
          'user_id',
          'user_uuid',
          'realm_uuid',
          'base_payload',
        ];
        checkFields(Object.keys(p), allowed, 'push/test_notification');
        must(
          typeof p.token === 'string' && Number.isInteger(p.token_kind),
          'push/test_notification: token',
        );
        must(
          Number.isInteger(p.user_id) && typeof p.user_uuid === 'string',
          'push/test_notification: user',
        );
        must(isObject(p.base_payload), 'push/test_notification: base_payload');
        checkBase(
          p.base_payload as Record<string, unknown>,
          'push/test_notification: base_payload',
        );
        const device = bouncer.devices.find(
          (d) => owned(d, p.user_uuid) && d.token === p.token && d.kind === p.token_kind,
        );
        if (!device) {
          return error(
            res,
            400,
            'Device not recognized by the push bouncer',
            'INVALID_REMOTE_PUSH_DEVICE_TOKEN',
          );
        }
        bouncer.tests.push({
          token: p.token as string,
          kind: p.token_kind as number,
          basePayload: p.base_payload as Record<string, unknown>,
        });
        return answer(res, 200, { result: 'success', msg: '' });
      }
      default:
        return error(res, 404, `no such endpoint ${path}`);
    }
  }

  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const path = (req.url ?? '').replace(/^\/api\/v1\/remotes\//, '');
      const expected = `Basic ${Buffer.from(`${orgId}:${orgKey}`).toString('base64')}`;
      if (bouncer.failNext > 0) {
        bouncer.failNext -= 1;
        bouncer.requests.push({ path, ok: false });
        return error(res, 503, 'Service unavailable');
      }
      if (req.method !== 'POST' || !(req.url ?? '').startsWith('/api/v1/remotes/')) {
        bouncer.problems.push(`${req.method} ${req.url}: not a bouncer endpoint`);
        return error(res, 404, 'Not found');
      }
      // Registering the server is the one unauthenticated call: the key is in the form.
      if (path !== 'server/register' && req.headers.authorization !== expected) {
        bouncer.problems.push(`${path}: bad credentials`);
        return error(
          res,
          401,
          `Zulip server auth failure: key does not match role ${orgId}`,
          'INVALID_ZULIP_SERVER',
        );
      }
      try {
        handle(path, String(req.headers['content-type'] ?? ''), body, res);
        bouncer.requests.push({ path, ok: res.statusCode < 400 });
      } catch (err) {
        const problem = err instanceof FormatProblem ? err.message : `${path}: ${String(err)}`;
        bouncer.problems.push(problem);
        bouncer.requests.push({ path, ok: false });
        error(res, 400, problem);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  bouncer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  bouncer.env = {
    PUSH_NOTIFICATION_BOUNCER_URL: bouncer.url,
    ZULIP_ORG_ID: orgId,
    ZULIP_ORG_KEY: orgKey,
  };
  bouncer.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return bouncer;
}
