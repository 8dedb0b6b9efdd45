import type { AppContext } from '../../core/context';
import type { RemovePushPayload } from '../../jobs';
import { BouncerError } from './bouncer-client';
import { notifyThroughBouncer, pushTarget } from './push-devices';
import { removePayloads } from './push-payloads';

/** Zulip removes at most this many notifications in one request (APNs payload size). */
const MAX_IDS_PER_REQUEST = 200;

/**
 * Job handler (remove-push): the messages were read, so their notifications are cleared from
 * the user's devices (Zulip's "remove" event). Clearing twice is harmless, so a retry after a
 * bouncer failure simply sends again; a refusal is final.
 */
export async function removePushNotifications(
  ctx: AppContext,
  payload: RemovePushPayload,
): Promise<void> {
  const bouncer = ctx.config.pushBouncer;
  if (!bouncer) return;
  const target = await pushTarget(ctx, ctx.db, payload.userId);
  if (!target || target.androidTokens.length + target.appleTokens.length === 0) return;
  const ids = [...payload.messageIds].sort((a, b) => a - b);
  for (let i = 0; i < ids.length; i += MAX_IDS_PER_REQUEST) {
    const { gcm, gcmOptions, apns } = removePayloads(
      target.realm,
      payload.userId,
      ids.slice(i, i + MAX_IDS_PER_REQUEST),
    );
    try {
      await notifyThroughBouncer(ctx, bouncer, target, {
        gcm_payload: gcm,
        gcm_options: gcmOptions,
        apns_payload: apns,
      });
    } catch (err) {
      if (err instanceof BouncerError && err.kind === 'rejected') {
        ctx.log.warn('push', 'push bouncer refused a removal', {
          userId: payload.userId,
          code: err.code,
          error: err.message,
        });
        return;
      }
      throw err;
    }
  }
}
