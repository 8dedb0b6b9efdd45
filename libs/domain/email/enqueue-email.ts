import type { Tx } from '../../db/client';
import { Jobs, writeJob, writeJobs } from '../../jobs';

/** In the transaction that creates (or resends) the invitations: their emails. */
export const writeInvitationEmails = (tx: Tx, invitationIds: number[]) =>
  writeJobs(
    tx,
    Jobs.sendEmail,
    invitationIds.map((invitationId) => ({ payload: { kind: 'invitation', invitationId } })),
  );

/**
 * In DELETE /users/{id}'s transaction: `comment` null sends nothing (spec 3), '' sends the notice
 * without custom text, anything else includes it.
 */
export async function writeDeactivationEmail(
  tx: Tx,
  userId: number,
  comment: string | null,
): Promise<void> {
  if (comment === null) return;
  await writeJob(tx, Jobs.sendEmail, { kind: 'deactivation', userId, comment });
}

/** In the transaction that records the email change: the confirmation email. */
export const writeEmailChangeEmail = (tx: Tx, emailChangeId: number) =>
  writeJob(tx, Jobs.sendEmail, { kind: 'email-change', emailChangeId });
