import type { EmailJobPayload } from '../../jobs/email';
import type { AppContext } from '../../core/context';
import { realmUrl } from '../realms/realm-url';
import { makeResetLink } from '../auth/password-reset-token';
import {
  deactivationEmail,
  emailChangeEmail,
  invitationEmail,
  passwordResetEmail,
  passwordResetNoAccountEmail,
} from './templates';
import { deliverEmail, type OutgoingEmail } from './transport';

/** Builds the email a job stands for from the current rows; null when its row is gone or used. */
async function buildEmail(
  ctx: AppContext,
  payload: EmailJobPayload,
): Promise<OutgoingEmail | null> {
  switch (payload.kind) {
    case 'invitation': {
      const invitation = await ctx.db.invitation.findUnique({
        where: { id: payload.invitationId },
        include: { realm: true, referredBy: true },
      });
      if (!invitation || invitation.status !== 0) return null;
      return invitationEmail({
        to: invitation.email,
        inviterName: invitation.referredBy.fullName,
        inviterEmail: invitation.referredBy.deliveryEmail,
        realmName: invitation.realm.name,
        realmUrl: realmUrl(invitation.realm.stringId, ctx.config),
        confirmationKey: invitation.confirmationKey,
      });
    }
    case 'deactivation': {
      const user = await ctx.db.user.findUnique({
        where: { id: payload.userId },
        include: { realm: true },
      });
      if (!user) return null;
      return deactivationEmail({
        to: user.deliveryEmail,
        realmName: user.realm.name,
        realmUrl: realmUrl(user.realm.stringId, ctx.config),
        comment: payload.comment,
      });
    }
    case 'email-change': {
      const change = await ctx.db.emailChangeStatus.findUnique({
        where: { id: payload.emailChangeId },
        include: { realm: true },
      });
      if (!change || change.status !== 0) return null;
      return emailChangeEmail({
        to: change.newEmail,
        oldEmail: change.oldEmail,
        newEmail: change.newEmail,
        realmName: change.realm.name,
        realmUrl: realmUrl(change.realm.stringId, ctx.config),
        confirmationKey: change.confirmationKey,
      });
    }
    case 'password-reset': {
      const user = await ctx.db.user.findUnique({
        where: { id: payload.userId },
        include: { realm: true },
      });
      if (!user || !user.isActive) return null;
      const url = realmUrl(user.realm.stringId, ctx.config);
      const { uidb64, token } = makeResetLink(ctx.config.secretKey, user, payload.issuedAt);
      return passwordResetEmail({
        to: user.deliveryEmail,
        realmName: user.realm.name,
        realmUrl: url,
        resetUrl: `${url}/accounts/password/reset/${uidb64}/${token}/`,
        validHours: Math.max(1, Math.round(ctx.config.passwordResetTimeoutSeconds / 3600)),
      });
    }
    case 'password-reset-no-account': {
      const realm = await ctx.db.realm.findUnique({ where: { id: payload.realmId } });
      if (!realm) return null;
      return passwordResetNoAccountEmail({
        to: payload.email,
        realmName: realm.name,
        realmUrl: realmUrl(realm.stringId, ctx.config),
        deactivated: payload.deactivated,
      });
    }
  }
}

/** Job handler: sends (or logs) the email; a vanished row finishes quietly. */
export async function sendEmailJob(ctx: AppContext, payload: EmailJobPayload): Promise<void> {
  const email = await buildEmail(ctx, payload);
  if (!email) {
    ctx.log.info('email', 'nothing to send; the row is gone or already used', { ...payload });
    return;
  }
  await deliverEmail(ctx, email);
}
