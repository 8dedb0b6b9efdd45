import type { Realm, User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import { validateLinkifier } from '../../markdown';
import type { AppContext } from '../../core/context';
import { realmUserAudience, requireRealmAdmin } from '../permissions/users';

export interface ApiLinkifier {
  pattern: string;
  url_template: string;
  id: number;
}

export async function listLinkifiers(db: Db | Tx, realmId: number): Promise<ApiLinkifier[]> {
  const rows = await db.realmFilter.findMany({
    where: { realmId },
    orderBy: [{ order: 'asc' }, { id: 'asc' }],
  });
  return rows.map((r) => ({ pattern: r.pattern, url_template: r.urlTemplate, id: r.id }));
}

/** Zulip reports linkifier validation failures with the field each message belongs to. */
function checkLinkifier(pattern: string, urlTemplate: string): void {
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

async function sendLinkifiers(tx: Tx, events: EventSink, realmId: number): Promise<void> {
  await events.emit(
    realmId,
    { type: 'realm_linkifiers', linkifiers: await listLinkifiers(tx, realmId) },
    await realmUserAudience(tx, realmId),
  );
}

async function checkUniquePattern(tx: Tx, realmId: number, pattern: string, exceptId?: number) {
  const clash = await tx.realmFilter.findFirst({
    where: { realmId, pattern, ...(exceptId !== undefined ? { id: { not: exceptId } } : {}) },
  });
  if (clash) {
    const msg = 'Linkifier with this Pattern and Realm already exists.';
    throw badRequest(msg, { errors: { __all__: [msg] } });
  }
}

/** `POST /realm/filters`: adds a linkifier at the end of the order. */
export async function addLinkifier(
  ctx: AppContext,
  input: { actor: User; realm: Realm; pattern: string; urlTemplate: string },
): Promise<number> {
  requireRealmAdmin(input.actor);
  checkLinkifier(input.pattern, input.urlTemplate);
  return inTransaction(ctx, async (tx, events) => {
    await checkUniquePattern(tx, input.realm.id, input.pattern);
    const last = await tx.realmFilter.aggregate({
      where: { realmId: input.realm.id },
      _max: { order: true },
    });
    const row = await tx.realmFilter.create({
      data: {
        realmId: input.realm.id,
        pattern: input.pattern,
        urlTemplate: input.urlTemplate,
        order: (last._max.order ?? -1) + 1,
      },
    });
    await sendLinkifiers(tx, events, input.realm.id);
    return row.id;
  });
}

async function findLinkifier(tx: Tx, realmId: number, id: number) {
  const row = await tx.realmFilter.findFirst({ where: { id, realmId } });
  if (!row) throw badRequest('Linkifier not found.');
  return row;
}

/** `PATCH /realm/filters/{filter_id}`. */
export async function updateLinkifier(
  ctx: AppContext,
  input: { actor: User; realm: Realm; id: number; pattern: string; urlTemplate: string },
): Promise<void> {
  requireRealmAdmin(input.actor);
  await inTransaction(ctx, async (tx, events) => {
    await findLinkifier(tx, input.realm.id, input.id);
    checkLinkifier(input.pattern, input.urlTemplate);
    await checkUniquePattern(tx, input.realm.id, input.pattern, input.id);
    await tx.realmFilter.update({
      where: { id: input.id },
      data: { pattern: input.pattern, urlTemplate: input.urlTemplate },
    });
    await sendLinkifiers(tx, events, input.realm.id);
  });
}

/** `DELETE /realm/filters/{filter_id}`. */
export async function removeLinkifier(
  ctx: AppContext,
  input: { actor: User; realm: Realm; id: number },
): Promise<void> {
  requireRealmAdmin(input.actor);
  await inTransaction(ctx, async (tx, events) => {
    await findLinkifier(tx, input.realm.id, input.id);
    await tx.realmFilter.delete({ where: { id: input.id } });
    await sendLinkifiers(tx, events, input.realm.id);
  });
}

/** `PATCH /realm/linkifiers`: the new order, naming every linkifier exactly once. */
export async function reorderLinkifiers(
  ctx: AppContext,
  input: { actor: User; realm: Realm; orderedIds: number[] },
): Promise<void> {
  requireRealmAdmin(input.actor);
  if (new Set(input.orderedIds).size !== input.orderedIds.length) {
    throw badRequest('The ordered list must not contain duplicated linkifiers');
  }
  await inTransaction(ctx, async (tx, events) => {
    const rows = await tx.realmFilter.findMany({
      where: { realmId: input.realm.id },
      select: { id: true },
    });
    const existing = new Set(rows.map((r) => r.id));
    if (
      existing.size !== input.orderedIds.length ||
      input.orderedIds.some((id) => !existing.has(id))
    ) {
      throw badRequest('The ordered list must enumerate all existing linkifiers exactly once');
    }
    for (const [order, id] of input.orderedIds.entries()) {
      await tx.realmFilter.update({ where: { id }, data: { order } });
    }
    await sendLinkifiers(tx, events, input.realm.id);
  });
}
