import type { OutgoingEmail } from './transport';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Plain text and a simple HTML version of the same paragraphs. */
function compose(to: string, subject: string, paragraphs: string[]): OutgoingEmail {
  return {
    to,
    subject,
    text: `${paragraphs.join('\n\n')}\n`,
    html: `<html><body>${paragraphs
      .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
      .join('\n')}</body></html>`,
  };
}

export function invitationEmail(input: {
  to: string;
  inviterName: string;
  inviterEmail: string;
  realmName: string;
  realmUrl: string;
  confirmationKey: string;
}): OutgoingEmail {
  const link = `${input.realmUrl}/join/${input.confirmationKey}/`;
  return compose(input.to, `${input.inviterName} invited you to join ${input.realmName}`, [
    'Hi there,',
    `${input.inviterName} (${input.inviterEmail}) wants you to join them in ${input.realmName}, a team chat organization at ${input.realmUrl}.`,
    `To get started, visit the link below:\n${link}`,
    'This link is valid for a limited time; ask for a new invitation if it has expired.',
  ]);
}

/**
 * Spec section 3: a null comment sends nothing (the caller does not enqueue); an empty comment
 * sends the notice without custom text; otherwise the administrators' text is included.
 */
export function deactivationEmail(input: {
  to: string;
  realmName: string;
  realmUrl: string;
  comment: string;
}): OutgoingEmail {
  const paragraphs = [
    'Hello,',
    `Your account in ${input.realmName} (${input.realmUrl}) has been deactivated, and you will no longer be able to log in.`,
  ];
  if (input.comment !== '') {
    paragraphs.push(`The administrators provided the following comment:\n\n${input.comment}`);
  }
  return compose(input.to, `Your account on ${input.realmUrl} has been deactivated`, paragraphs);
}

export function emailChangeEmail(input: {
  to: string;
  oldEmail: string;
  newEmail: string;
  realmName: string;
  realmUrl: string;
  confirmationKey: string;
}): OutgoingEmail {
  const link = `${input.realmUrl}/accounts/confirm_new_email/${input.confirmationKey}/`;
  return compose(input.to, `Verify your new email address for ${input.realmName}`, [
    'Hi,',
    `We received a request to change the email address for your account in ${input.realmName} (${input.realmUrl}) from ${input.oldEmail} to ${input.newEmail}.`,
    `To confirm this change, click the link below:\n${link}`,
    'If you did not request this change, please ignore this email.',
  ]);
}

/** Zulip's password_reset email for an active account: the one-use link. */
export function passwordResetEmail(input: {
  to: string;
  realmName: string;
  realmUrl: string;
  resetUrl: string;
  validHours: number;
}): OutgoingEmail {
  return compose(input.to, `Reset your password for ${input.realmName}`, [
    'Hello,',
    `Psst. Word on the street is that you need a new password for your account in ${input.realmName} (${input.realmUrl}).`,
    `To reset your password, click the link below (it works once, for ${input.validHours} hours):\n${input.resetUrl}`,
    'If you did not request this, you can ignore this email; your password stays as it is.',
  ]);
}

/** The same request for an address with no active account here: says so, with no link. */
export function passwordResetNoAccountEmail(input: {
  to: string;
  realmName: string;
  realmUrl: string;
  deactivated: boolean;
}): OutgoingEmail {
  const why = input.deactivated
    ? `The account for ${input.to} in ${input.realmName} (${input.realmUrl}) is deactivated; ask the organization's administrators to reactivate it.`
    : `There is no account in ${input.realmName} (${input.realmUrl}) for ${input.to}.`;
  return compose(input.to, `Password reset request for ${input.realmName}`, [
    'Hello,',
    `Someone (possibly you) asked to reset the password for ${input.to} in ${input.realmName}.`,
    why,
    'If you did not request this, you can ignore this email.',
  ]);
}

/** The operator's `send-test-email`: proves that SMTP settings deliver, as Zulip's command does. */
export function testEmail(input: { to: string; externalHost: string }): OutgoingEmail {
  return compose(input.to, `Test email from ${input.externalHost}`, [
    'Hello,',
    `This is a test email from the chat server at ${input.externalHost}. If you are reading it, outgoing email works.`,
  ]);
}
