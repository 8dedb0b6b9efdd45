import request from 'supertest';
import { cliEnv, runCli } from '../../../test/cli';
import { makeRealm } from '../../../test/factories';
import { basicAuth } from '../../../test/harness';
import { jobsWritten } from '../../../test/jobs';
import { type Organization, organization } from '../../../test/organization';
import { startSmtpReceiver, waitFor, type SmtpReceiver } from '../../../test/worker-factories';
import { makeResetLink } from '../../../libs/domain/auth/password-reset-token';
import { sendEmailJob } from '../../../libs/domain/email/send-email-job';
import { Jobs, type EmailJobPayload } from '../../../libs/jobs';

/**
 * Password reset by email (Zulip's /accounts/password/reset/), through a real SMTP server on
 * loopback, and what a password change does to the user's other sessions.
 */
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new long passphrase';
let smtp: SmtpReceiver;
let org: Organization<'hamlet' | 'cordelia' | 'gone'>;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  org = await organization({
    env: { ...smtp.env, RATE_LIMIT_AUTH_ATTEMPTS: '3', RATE_LIMIT_SENDS_EMAIL_BY_IP_PER_DAY: '50' },
    realm: { name: 'Acme Chat', ownerPassword: PASSWORD },
    members: {
      hamlet: { password: PASSWORD },
      cordelia: { password: PASSWORD },
      gone: { password: PASSWORD },
    },
  });
  await org.t.db.user.update({ where: { id: org.users.gone.user.id }, data: { isActive: false } });
});
afterAll(async () => {
  await org.close();
  await smtp.close();
});

const cookieOf = (res: request.Response, name: string) =>
  ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith(`${name}=`))
    ?.split(';')[0]
    .split('=')[1] ?? '';

/** A browser: an agent that has opened the reset page and holds its CSRF cookie. */
async function browser() {
  const agent = request.agent(org.t.app);
  const page = await agent.get('/accounts/password/reset/').set('Host', org.host);
  expect(page.status).toBe(200);
  return { agent, csrf: cookieOf(page, 'csrftoken') };
}

async function askReset(email: string) {
  const { agent, csrf } = await browser();
  return agent
    .post('/accounts/password/reset/')
    .set('Host', org.host)
    .type('form')
    .send({ email, csrfmiddlewaretoken: csrf });
}

/** Runs the email jobs written since `from` through the worker's handler, to the SMTP server. */
async function sendEmails(from: number): Promise<EmailJobPayload[]> {
  const jobs = (await jobsWritten(org.t, Jobs.sendEmail)).slice(from);
  for (const job of jobs) await sendEmailJob(org.t, job);
  return jobs;
}

const unfold = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
const mailTo = (address: string, after: number) =>
  waitFor(async () => smtp.mails.slice(after).find((m) => m.to.includes(address)));
const resetPath = (raw: string) =>
  /http:\/\/[^/\s]+(\/accounts\/password\/reset\/[A-Za-z0-9_-]+\/[0-9a-z]+-[0-9a-f]+\/)/.exec(
    unfold(raw),
  )?.[1];

async function webSession(email: string, password: string) {
  const { agent, csrf } = await browser();
  const login = await agent
    .post('/json/login')
    .set('Host', org.host)
    .set('X-CSRFToken', csrf)
    .type('form')
    .send({ username: email, password });
  expect(login.status).toBe(200);
  return { agent, csrf: cookieOf(login, 'csrftoken') };
}

const me = (agent: ReturnType<typeof request.agent>) =>
  agent.get('/json/users/me').set('Host', org.host);

async function setPassword(path: string, password: string, confirm = password) {
  const { agent, csrf } = await browser();
  const form = await agent.get(path).set('Host', org.host);
  return {
    form,
    post: await agent
      .post(path)
      .set('Host', org.host)
      .type('form')
      .send({ new_password1: password, new_password2: confirm, csrfmiddlewaretoken: csrf }),
  };
}

describe('asking for a reset', () => {
  it('answers the same whether or not the address has an account', async () => {
    const jobs = (await jobsWritten(org.t, Jobs.sendEmail)).length;
    const mails = smtp.mails.length;
    const known = await askReset(org.users.hamlet.email);
    const unknown = await askReset('nobody@example.com');
    const deactivated = await askReset(org.users.gone.email);
    for (const res of [known, unknown, deactivated]) {
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/accounts/password/reset/done/');
    }
    expect(unknown.text).toBe(known.text);
    expect(deactivated.text).toBe(known.text);
    await sendEmails(jobs);
    const link = resetPath((await mailTo(org.users.hamlet.email, mails)).raw);
    expect(link).toBeDefined();
    const none = unfold((await mailTo('nobody@example.com', mails)).raw);
    expect(none).toContain('There is no account in Acme Chat');
    expect(resetPath(none)).toBeUndefined();
    const off = unfold((await mailTo(org.users.gone.email, mails)).raw);
    expect(off).toContain('is deactivated');
    expect(resetPath(off)).toBeUndefined();
  });

  it('refuses a form without the CSRF token and changes nothing', async () => {
    const jobs = (await jobsWritten(org.t, Jobs.sendEmail)).length;
    const res = await request(org.t.app)
      .post('/accounts/password/reset/')
      .set('Host', org.host)
      .type('form')
      .send({ email: org.users.cordelia.email });
    expect(res.status).toBe(403);
    expect(await jobsWritten(org.t, Jobs.sendEmail)).toHaveLength(jobs);
  });

  it('limits resets per address: the third within the hour is refused, sending nothing', async () => {
    const email = 'limited@example.com';
    expect((await askReset(email)).status).toBe(302);
    expect((await askReset(email)).status).toBe(302);
    const jobs = (await jobsWritten(org.t, Jobs.sendEmail)).length;
    const third = await askReset(email);
    expect(third.status).toBe(429);
    expect(third.text).toContain('rate limit');
    expect(await jobsWritten(org.t, Jobs.sendEmail)).toHaveLength(jobs);
  });
});

describe('using the link', () => {
  it('sets the password once, ends every session and keeps the API key', async () => {
    const user = org.users.cordelia;
    const first = await webSession(user.email, PASSWORD);
    const second = await webSession(user.email, PASSWORD);
    expect((await me(first.agent)).status).toBe(200);
    const jobs = (await jobsWritten(org.t, Jobs.sendEmail)).length;
    const mails = smtp.mails.length;
    await askReset(user.email);
    await sendEmails(jobs);
    const path = resetPath((await mailTo(user.email, mails)).raw)!;

    const weak = await setPassword(path, 'abc');
    expect(weak.form.status).toBe(200);
    expect(weak.form.headers['referrer-policy']).toBe('no-referrer');
    expect(weak.post.status).toBe(400);
    expect(weak.post.text).toContain('too weak');
    expect((await setPassword(path, NEW_PASSWORD, 'different')).post.status).toBe(400);

    const used = await setPassword(path, NEW_PASSWORD);
    expect(used.post.status).toBe(302);
    expect(used.post.headers.location).toBe('/accounts/password/done/');
    expect((await me(first.agent)).status).toBe(401);
    expect((await me(second.agent)).status).toBe(401);
    const api = await request(org.t.app)
      .get('/api/v1/users/me')
      .set('Host', org.host)
      .set('Authorization', basicAuth(user.email, user.apiKey));
    expect(api.status).toBe(200);
    await webSession(user.email, NEW_PASSWORD);

    const again = await setPassword(path, 'yet another long passphrase');
    expect(again.form.status).toBe(400);
    expect(again.post.status).toBe(400);
    expect(again.post.text).toContain('invalid or has expired');
    await webSession(user.email, NEW_PASSWORD);
  });

  it('refuses expired, forged and other-organization links', async () => {
    const user = await org.t.db.user.findUniqueOrThrow({ where: { id: org.users.hamlet.user.id } });
    const now = Math.floor(Date.now() / 1000);
    const expired = makeResetLink(org.t.config.secretKey, user, now - 2 * 86400);
    const forged = makeResetLink('some-other-secret-key-entirely', user, now);
    const fine = makeResetLink(org.t.config.secretKey, user, now);
    for (const link of [expired, forged, { ...fine, uidb64: 'bm90LWEtbnVtYmVy' }]) {
      const path = `/accounts/password/reset/${link.uidb64}/${link.token}/`;
      const { form, post } = await setPassword(path, NEW_PASSWORD);
      expect(form.status).toBe(400);
      expect(post.status).toBe(400);
    }
    const elsewhere = await makeRealm(org.t, { stringId: 'elsewhere' });
    const other = await request(org.t.app)
      .get(`/accounts/password/reset/${fine.uidb64}/${fine.token}/`)
      .set('Host', elsewhere.host);
    expect(other.status).toBe(400);
    const unchanged = await org.t.db.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(unchanged.passwordHash).toBe(user.passwordHash);
  });
});

describe('changing the password in settings', () => {
  it('keeps the session that changed it and ends the others', async () => {
    const user = org.users.hamlet;
    const mine = await webSession(user.email, PASSWORD);
    const other = await webSession(user.email, PASSWORD);
    const res = await mine.agent
      .patch('/json/settings')
      .set('Host', org.host)
      .set('X-CSRFToken', mine.csrf)
      .type('form')
      .send({ old_password: PASSWORD, new_password: NEW_PASSWORD });
    expect(res.status).toBe(200);
    expect((await me(mine.agent)).status).toBe(200);
    expect((await me(other.agent)).status).toBe(401);
  });
});

describe('the authentication rate limit', () => {
  it('locks the address after failed attempts, and unlock-user lifts it', async () => {
    const user = org.owner;
    const fetchKey = (password: string) =>
      request(org.t.app)
        .post('/api/v1/fetch_api_key')
        .set('Host', org.host)
        .type('form')
        .send({ username: user.email, password });
    for (let i = 0; i < 3; i++) expect((await fetchKey('wrong password')).status).toBe(401);
    expect((await fetchKey(PASSWORD)).status).toBe(429);
    const run = await runCli(['unlock-user', '--username', user.email.toUpperCase(), '--json'], {
      ...cliEnv(org.t.config),
      RATE_LIMIT_AUTH_ATTEMPTS: '3',
    });
    expect(run.code).toBe(0);
    expect(run.json).toEqual({ username: user.email, unlocked: true });
    expect((await fetchKey(PASSWORD)).status).toBe(200);
  }, 30000);
});
