import { enqueueJob, JobName } from '../../jobs';
import type { AppContext } from '../../core/context';

/** For producers: queue the invitation email (call after the invitation commits). */
export const enqueueInvitationEmail = (ctx: AppContext, invitationId: number) =>
  enqueueJob(ctx, JobName.SEND_EMAIL, { kind: 'invitation', invitationId });

/**
 * For DELETE /users/{id}: `comment` null sends nothing (spec 3), '' sends the notice without custom
 * text, anything else includes it.
 */
export async function enqueueDeactivationEmail(
  ctx: AppContext,
  userId: number,
  comment: string | null,
): Promise<void> {
  if (comment === null) return;
  await enqueueJob(ctx, JobName.SEND_EMAIL, { kind: 'deactivation', userId, comment });
}

export const enqueueEmailChangeEmail = (ctx: AppContext, emailChangeId: number) =>
  enqueueJob(ctx, JobName.SEND_EMAIL, { kind: 'email-change', emailChangeId });
