import type { AppContext } from '../../../libs/core/context';
import { testEmail } from '../../../libs/domain/email/templates';
import { deliverEmail } from '../../../libs/domain/email/transport';
import { normalizeEmail } from '../../../libs/domain/users/validate';
import { parseFlags, requireFlag, UsageError } from '../args';

/**
 * Sends one email through the configured SMTP server, now (not through the queue), so a wrong
 * host, port or password shows as this command's error.
 */
export async function sendTestEmailCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['to']);
  const to = normalizeEmail(requireFlag(flags, 'to'));
  const smtp = ctx.config.smtp;
  if (!smtp) {
    throw new UsageError('SMTP_HOST is not set: emails are only written to the log, not sent');
  }
  await deliverEmail(ctx, testEmail({ to, externalHost: ctx.config.externalHost }));
  return { sent_to: to, from: ctx.config.emailFrom, smtp: `${smtp.host}:${smtp.port}` };
}
