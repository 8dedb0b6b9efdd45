import { isIP } from 'node:net';
import type { Config } from '../../core/config';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { at } from '../../core/at';

/** The host part of EXTERNAL_HOST (`[::1]:9991`, `10.0.0.5:9991`, `chat.example.com`). */
function hostName(externalHost: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(externalHost);
  if (bracketed) return at(bracketed, 1);
  return isIP(externalHost) === 6 ? externalHost : externalHost.replace(/:\d+$/, '');
}

/** An IP address has no subdomains: `zed.192.168.1.10` names no machine. */
export const externalHostIsIpAddress = (config: Pick<Config, 'externalHost'>): boolean =>
  isIP(hostName(config.externalHost)) !== 0;

/** Refuses an organization on a subdomain when clients could never reach its URL. */
export function checkSubdomainReachable(
  stringId: string,
  config: Pick<Config, 'externalHost'>,
): void {
  if (stringId === '' || !externalHostIsIpAddress(config)) return;
  throw badRequest(
    `EXTERNAL_HOST is the IP address ${config.externalHost}, which has no subdomains: ` +
      `an organization at ${stringId}.${config.externalHost} could not be reached. ` +
      'Set EXTERNAL_HOST to a DNS name, or create the root organization (an empty subdomain).',
  );
}

/**
 * At boot: organizations on subdomains that the current EXTERNAL_HOST cannot reach (it was
 * changed to an IP address after they were made) are named in a warning; nothing stops.
 */
export async function warnUnreachableSubdomains(ctx: AppContext): Promise<void> {
  if (!externalHostIsIpAddress(ctx.config)) return;
  try {
    const realms = await ctx.db.realm.findMany({
      where: { stringId: { not: '' }, deactivated: false },
      select: { stringId: true },
      orderBy: { id: 'asc' },
    });
    if (realms.length === 0) return;
    ctx.log.warn('boot', 'organizations on subdomains cannot be reached at an IP address', {
      external_host: ctx.config.externalHost,
      subdomains: realms.map((r) => r.stringId),
      fix: 'set EXTERNAL_HOST to a DNS name whose subdomains resolve to this server',
    });
  } catch (err) {
    ctx.log.warn('boot', 'could not check organizations against EXTERNAL_HOST', {
      error: (err as Error).message,
    });
  }
}
