import { randomBytes } from 'node:crypto';
import { makeUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { startSmtpReceiver, waitFor, type SmtpReceiver } from '../../../test/worker-factories';
import { Jobs } from '../../jobs';
import type { Logger } from '../../core/log';
import { writeDeactivationEmail } from './enqueue-email';
import { jobsWritten } from '../../../test/jobs';
import { sendEmailJob } from './send-email-job';
import { type Organization, organization } from '../../../test/organization';

let smtp: SmtpReceiver;
let t: TestContext;
let org: Organization;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  org = await organization({
    env: smtp.env,
    realm: { name: 'Acme Chat' },
  });
  ({ t } = org);
});
afterAll(async () => {
  await org.close();
  await smtp.close();
});

const unfold = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/\r\n/g, '\n');
const mailTo = (address: string) =>
  waitFor(async () => smtp.mails.find((m) => m.to.includes(address)));

describe('emails over SMTP', () => {
  it('sends the invitation with the confirmation link', async () => {
    const key = randomBytes(12).toString('hex');
    const invitation = await t.db.invitation.create({
      data: {
        realmId: org.realm.id,
        email: 'invitee@example.com',
        referredById: org.owner.user.id,
        confirmationKey: key,
      },
    });
    await sendEmailJob(t, { kind: 'invitation', invitationId: invitation.id });
    const mail = await mailTo('invitee@example.com');
    expect(mail.from).toBe('noreply@chat.test');
    const raw = unfold(mail.raw);
    expect(raw).toContain('Subject: Olivia Owner invited you to join Acme Chat');
    expect(raw).toContain(`http://${org.host}/join/${key}/`);
    expect(raw).toContain('Content-Type: text/html');
  });

  it('deactivation: custom text when non-empty, none when empty, no email when null', async () => {
    const withText = await makeUser(t, org.realm, { email: 'gone1@example.com' });
    const noText = await makeUser(t, org.realm, { email: 'gone2@example.com' });
    const none = await makeUser(t, org.realm, { email: 'gone3@example.com' });
    await sendEmailJob(t, {
      kind: 'deactivation',
      userId: withText.user.id,
      comment: 'Thanks for all the fish',
    });
    await sendEmailJob(t, { kind: 'deactivation', userId: noText.user.id, comment: '' });
    const first = unfold((await mailTo('gone1@example.com')).raw);
    const second = unfold((await mailTo('gone2@example.com')).raw);
    expect(first).toContain('has been deactivated');
    expect(first).toContain('The administrators provided the following comment:');
    expect(first).toContain('Thanks for all the fish');
    expect(second).toContain('has been deactivated');
    expect(second).not.toContain('The administrators provided the following comment');
    const jobsBefore = (await jobsWritten(t, Jobs.sendEmail)).length;
    await t.db.$transaction((tx) => writeDeactivationEmail(tx, none.user.id, null));
    expect(await jobsWritten(t, Jobs.sendEmail)).toHaveLength(jobsBefore);
    await t.db.$transaction((tx) => writeDeactivationEmail(tx, none.user.id, ''));
    expect((await jobsWritten(t, Jobs.sendEmail)).slice(jobsBefore)).toEqual([
      { kind: 'deactivation', userId: none.user.id, comment: '' },
    ]);
  });

  it('sends the email-change confirmation to the new address', async () => {
    const user = await makeUser(t, org.realm, { email: 'old@example.com' });
    const change = await t.db.emailChangeStatus.create({
      data: {
        realmId: org.realm.id,
        userId: user.user.id,
        oldEmail: 'old@example.com',
        newEmail: 'new@example.com',
        confirmationKey: 'changekey123',
      },
    });
    await sendEmailJob(t, { kind: 'email-change', emailChangeId: change.id });
    const raw = unfold((await mailTo('new@example.com')).raw);
    expect(raw).toContain('Subject: Verify your new email address for Acme Chat');
    expect(raw).toContain(`http://${org.host}/accounts/confirm_new_email/changekey123/`);
  });

  it('a used or vanished row sends nothing', async () => {
    const count = smtp.mails.length;
    await sendEmailJob(t, { kind: 'invitation', invitationId: 987654 });
    await sendEmailJob(t, { kind: 'email-change', emailChangeId: 987654 });
    expect(smtp.mails.length).toBe(count);
  });
});

describe('without an SMTP server', () => {
  it('logs the message instead of dropping it', async () => {
    const lines: { message: string; fields?: Record<string, unknown> }[] = [];
    const log: Logger = {
      ...t.log,
      info: (_c, message, fields) => void lines.push({ message, fields }),
    };
    const ctx = { ...t, config: { ...t.config, smtp: null }, log };
    const user = await makeUser(t, org.realm, { email: 'logged@example.com' });
    await sendEmailJob(ctx, { kind: 'deactivation', userId: user.user.id, comment: 'bye' });
    const line = lines.find((l) => l.message.startsWith('no SMTP server configured'));
    expect(line?.fields).toMatchObject({ to: 'logged@example.com' });
    expect(String(line?.fields?.text)).toContain('bye');
    expect(smtp.mails.some((m) => m.to.includes('logged@example.com'))).toBe(false);
  });
});
