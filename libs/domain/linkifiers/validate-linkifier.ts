import type { Tx } from '../../db/client';
import { badRequest } from '../../core/errors';
import { validateLinkifier } from '../../markdown';

/** Zulip reports linkifier validation failures with the field each message belongs to. */
export function checkLinkifier(pattern: string, urlTemplate: string): void {
  try {
    validateLinkifier(pattern, urlTemplate);
  } catch (err) {
    const msg = err instanceof Error ? err.message : 'Invalid linkifier';
    const field = msg.startsWith('Bad regular expression')
      ? 'pattern'
      : msg === 'Invalid URL template.'
        ? 'url_template'
        : '__all__';
    throw badRequest(msg, { errors: { [field]: [msg] } });
  }
}

export async function checkUniquePattern(
  tx: Tx,
  realmId: number,
  pattern: string,
  exceptId?: number,
) {
  const clash = await tx.realmFilter.findFirst({
    where: { realmId, pattern, ...(exceptId !== undefined ? { id: { not: exceptId } } : {}) },
  });
  if (clash) {
    const msg = 'Linkifier with this Pattern and Realm already exists.';
    throw badRequest(msg, { errors: { __all__: [msg] } });
  }
}

export async function findLinkifier(tx: Tx, realmId: number, id: number) {
  const row = await tx.realmFilter.findFirst({ where: { id, realmId } });
  if (!row) throw badRequest('Linkifier not found.');
  return row;
}
