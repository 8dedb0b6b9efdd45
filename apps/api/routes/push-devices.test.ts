import type { TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let member: TestUser;

beforeAll(async () => {
  org = await organization({ members: { member: 'member' } });
  ({ t } = org);
  ({ member } = org.users);
});
afterAll(() => org.close());

const tokens = () => t.db.pushDeviceToken.findMany({ where: { userId: member.user.id } });

describe('POST /users/me/apns_device_token', () => {
  it('registers a device once, however often it is sent', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await org.as(member).post('/users/me/apns_device_token', {
        token: 'c0ffee',
        appid: 'org.zulip.Zulip',
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ result: 'success', msg: '' });
    }
    expect(await tokens()).toEqual([
      expect.objectContaining({ token: 'c0ffee', kind: 1, appId: 'org.zulip.Zulip' }),
    ]);
  });

  it.each([
    [{ token: '', appid: 'org.zulip.Zulip' }, 'Empty or invalid length token'],
    [{ token: 'f'.repeat(4098), appid: 'org.zulip.Zulip' }, 'Empty or invalid length token'],
    [{ token: 'not-hex!', appid: 'org.zulip.Zulip' }, 'Invalid APNS token'],
    [{ token: 'c0ffee', appid: 'bad app id!' }, 'Invalid app ID'],
  ])('refuses %j with BAD_REQUEST', async (form, msg) => {
    const before = await tokens();
    const res = await org.as(member).post('/users/me/apns_device_token', form);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
    expect(await tokens()).toEqual(before);
  });

  it('requires appid', async () => {
    const res = await org.as(member).post('/users/me/apns_device_token', { token: 'abcd' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('REQUEST_VARIABLE_MISSING');
  });
});

describe('DELETE /users/me/apns_device_token', () => {
  it('removes a registered device', async () => {
    await org
      .as(member)
      .post('/users/me/apns_device_token', { token: 'beef', appid: 'org.zulip.Zulip' });
    const res = await org.as(member).delete('/users/me/apns_device_token', { token: 'beef' });
    expect(res.status).toBe(200);
    expect((await tokens()).map((d) => d.token)).not.toContain('beef');
  });

  it('refuses a token that is not registered', async () => {
    const res = await org.as(member).delete('/users/me/apns_device_token', { token: 'abab' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ result: 'error', msg: 'Token does not exist', code: 'BAD_REQUEST' });
  });

  it("cannot remove another user's device", async () => {
    await org
      .as(member)
      .post('/users/me/apns_device_token', { token: 'dada', appid: 'org.zulip.Zulip' });
    const res = await org.as(org.owner).delete('/users/me/apns_device_token', { token: 'dada' });
    expect(res.status).toBe(400);
    expect((await tokens()).map((d) => d.token)).toContain('dada');
  });
});

describe('POST /users/me/android_gcm_reg_id', () => {
  it('registers an FCM token without appid', async () => {
    const res = await org.as(member).post('/users/me/android_gcm_reg_id', { token: 'fcm-token-1' });
    expect(res.status).toBe(200);
    expect(await tokens()).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 2, token: 'fcm-token-1' })]),
    );
  });
});
