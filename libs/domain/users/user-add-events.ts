import type { User } from '../../../generated/prisma/client';
import type { EventSink } from '../../events/outbox';
import { canSeeDeliveryEmail } from '../permissions/email-visibility';
import { formatUser, type ProfileData } from './format-user';
import { realmUserEvent } from '../../protocol/events/realm-user';

/**
 * `realm_user` add events about `user` for `viewers`, who can all access the user (Zulip's
 * `notify_created_user`). The person differs between viewers only in whether delivery_email shows,
 * so two events at most.
 */
export async function emitUserAdd(
  events: EventSink,
  user: User,
  viewers: { id: number; role: number }[],
  profileData: ProfileData,
): Promise<void> {
  const seeing = viewers.filter((viewer) => canSeeDeliveryEmail(viewer, user));
  const notSeeing = viewers.filter((viewer) => !canSeeDeliveryEmail(viewer, user));
  for (const group of [seeing, notSeeing]) {
    const [first] = group;
    if (!first) continue;
    const person = formatUser(user, { viewer: first, clientGravatar: false, profileData });
    await events.emit(
      user.realmId,
      realmUserEvent({ op: 'add', person }),
      group.map((v) => v.id),
    );
  }
}
