import type { User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import {
  accessDependsOnConversations,
  guestAccessRestricted,
  pairsSharingConversation,
} from '../permissions/users';
import type { ProfileData } from '../users/format-user';
import { loadProfileData } from '../users/profile-data';
import { INACCESSIBLE_USER_NAME } from '../users/user-access';
import { emitUserAdd } from '../users/user-add-events';
import { realmUserEvent } from '../../protocol/events/realm-user';

type SubscriptionChange = { userId: number; recipientId: number };
type Party = Pick<User, 'id' | 'role' | 'isBot'>;

/**
 * Where guests are restricted to the users they share a conversation with, a subscription change
 * can give a guest access to someone or take it away. Zulip then tells the guest with a
 * `realm_user` add (the person's real data) or remove ("Unknown user"), whichever side of the
 * pair the guest is (`send_user_creation_events_on_adding_subscriptions`,
 * `send_user_remove_events_on_removing_subscriptions`). Called in the action's transaction once
 * the subscriptions have changed, before the peer events that mention the users.
 */
export async function emitGuestAccessEvents(
  tx: Tx,
  events: EventSink,
  realmId: number,
  op: 'add' | 'remove',
  changes: SubscriptionChange[],
): Promise<void> {
  if (changes.length === 0 || !(await guestAccessRestricted(tx, realmId))) return;
  const viewersByTarget = await changedSight(tx, op, changes);
  const targetIds = [...viewersByTarget.keys()].sort((x, y) => x - y);
  const adding = op === 'add';
  const targets = adding ? await tx.user.findMany({ where: { id: { in: targetIds } } }) : [];
  const profiles = adding ? await loadProfileData(tx, targetIds) : new Map<number, ProfileData>();
  const targetById = new Map(targets.map((u) => [u.id, u]));
  for (const targetId of targetIds) {
    const viewers = viewersByTarget.get(targetId) as Party[];
    if (adding) {
      await emitUserAdd(
        events,
        targetById.get(targetId) as User,
        viewers,
        profiles.get(targetId) ?? {},
      );
    } else {
      await events.emit(
        realmId,
        realmUserEvent({
          op: 'remove',
          person: { user_id: targetId, full_name: INACCESSIBLE_USER_NAME },
        }),
        viewers.map((v) => v.id),
      );
    }
  }
}

/** The guests whose sight of someone the change gives or takes away, by that someone. */
async function changedSight(
  tx: Tx,
  op: 'add' | 'remove',
  changes: SubscriptionChange[],
): Promise<Map<number, Party[]>> {
  const recipientIds = [...new Set(changes.map((c) => c.recipientId))];
  const subscribed = await tx.subscription.findMany({
    where: { recipientId: { in: recipientIds }, active: true, isUserActive: true },
    select: { userId: true, recipientId: true },
  });
  // The users just removed were subscribers alongside each other too.
  const members = new Map<number, Set<number>>();
  for (const s of op === 'remove' ? [...subscribed, ...changes] : subscribed) {
    members.set(s.recipientId, (members.get(s.recipientId) ?? new Set()).add(s.userId));
  }
  const pairs = new Map<string, [number, number]>();
  for (const change of changes) {
    for (const peer of members.get(change.recipientId) ?? []) {
      if (peer === change.userId) continue;
      const pair: [number, number] = [Math.min(peer, change.userId), Math.max(peer, change.userId)];
      pairs.set(pair.join(':'), pair);
    }
  }
  const users = await tx.user.findMany({
    where: { id: { in: [...new Set([...pairs.values()].flat())] }, isActive: true },
    select: { id: true, role: true, isBot: true },
  });
  const byId = new Map(users.map((u) => [u.id, u]));
  const candidates = [...pairs.values()].filter(([a, b]) => {
    const [ua, ub] = [byId.get(a), byId.get(b)];
    return (
      ua && ub && (accessDependsOnConversations(ua, ub) || accessDependsOnConversations(ub, ua))
    );
  });
  // Access changed for pairs that shared nothing before the subscriptions (add) or do not now.
  const sharing = await pairsSharingConversation(tx, candidates, op === 'add' ? changes : []);
  const viewersByTarget = new Map<number, Party[]>();
  for (const [a, b] of candidates) {
    if (sharing.has(`${a}:${b}`)) continue;
    const [ua, ub] = [byId.get(a) as Party, byId.get(b) as Party];
    const directions: [Party, Party][] = [
      [ua, ub],
      [ub, ua],
    ];
    for (const [viewer, target] of directions) {
      if (accessDependsOnConversations(viewer, target)) {
        viewersByTarget.set(target.id, [...(viewersByTarget.get(target.id) ?? []), viewer]);
      }
    }
  }
  return viewersByTarget;
}
