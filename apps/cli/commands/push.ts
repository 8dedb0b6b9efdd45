import type { AppContext } from '../../../libs/core/context';
import { BouncerError, registerServer } from '../../../libs/domain/push/bouncer-client';
import { optionalFlag, parseFlags, requireFlag, UsageError } from '../args';

/**
 * `register-push-server`: registers this server with the push notification bouncer configured
 * by PUSH_NOTIFICATION_BOUNCER_URL, ZULIP_ORG_ID and ZULIP_ORG_KEY (Zulip's `register_server`),
 * or updates its host name (`--hostname`, default EXTERNAL_HOST) and contact email.
 */
export async function registerPushServerCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['contact-email', 'hostname']);
  const bouncer = ctx.config.pushBouncer;
  if (!bouncer) {
    throw new UsageError(
      'set PUSH_NOTIFICATION_BOUNCER_URL, ZULIP_ORG_ID and ZULIP_ORG_KEY first (docs/notifications.md)',
    );
  }
  const hostname = optionalFlag(flags, 'hostname') ?? ctx.config.externalHost;
  const contactEmail = requireFlag(flags, 'contact-email');
  try {
    const { created } = await registerServer(bouncer, { hostname, contactEmail });
    return { bouncer: bouncer.url, zulip_org_id: bouncer.orgId, hostname, created };
  } catch (err) {
    if (err instanceof BouncerError) throw new UsageError(err.message);
    throw err;
  }
}
