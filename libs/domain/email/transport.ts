import nodemailer, { type Transporter } from 'nodemailer';
import type { AppContext } from '../../core/context';

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** A stable Message-ID, so a retried send reads as the same email to mail systems. */
  messageId?: string;
}

/*
 * One transporter per context. Without an SMTP server the JSON transport renders the message and
 * the log keeps it, so nothing is silently dropped.
 */
const transporters = new WeakMap<AppContext, Transporter>();

function transporterFor(ctx: AppContext): Transporter {
  let transporter = transporters.get(ctx);
  if (!transporter) {
    const smtp = ctx.config.smtp;
    transporter = smtp
      ? nodemailer.createTransport({
          host: smtp.host,
          port: smtp.port,
          secure: smtp.secure,
          ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.password } } : {}),
          // Loopback or internal relays often lack a certificate; SMTP_SECURE opts into TLS.
          ignoreTLS: !smtp.secure,
        })
      : nodemailer.createTransport({ jsonTransport: true });
    transporters.set(ctx, transporter);
  }
  return transporter;
}

/** Sends one email through SMTP, or writes it to the log when no SMTP server is configured. */
export async function deliverEmail(ctx: AppContext, email: OutgoingEmail): Promise<void> {
  const info = await transporterFor(ctx).sendMail({ from: ctx.config.emailFrom, ...email });
  if (ctx.config.smtp) {
    ctx.log.info('email', 'email sent', { to: email.to, subject: email.subject });
  } else {
    ctx.log.info('email', 'no SMTP server configured; email logged instead of sent', {
      to: email.to,
      subject: email.subject,
      text: email.text,
      message: (info as { message?: unknown }).message,
    });
  }
}
