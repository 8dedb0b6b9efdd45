import { gravatarHash } from '../realms/realm-url';

export interface AvatarSubject {
  id: number;
  realmId: number;
  deliveryEmail: string;
  avatarSource: string;
  avatarVersion: number;
}

/** 'G' is a Gravatar (of the real email address), 'U' an uploaded image. */
export function avatarUrl(user: AvatarSubject, medium = false): string {
  if (user.avatarSource === 'U') {
    return `/user_avatars/${user.realmId}/${user.id}${medium ? '-medium' : ''}.png?version=${user.avatarVersion}`;
  }
  const size = medium ? '&s=500' : '';
  return `https://secure.gravatar.com/avatar/${gravatarHash(user.deliveryEmail)}?d=identicon${size}&version=${user.avatarVersion}`;
}

/**
 * With `client_gravatar` the client computes Gravatar URLs itself, so the server sends null,
 * but only where the client could compute it: a Gravatar and an email address it can see.
 */
export function avatarUrlFor(
  user: AvatarSubject,
  clientGravatar: boolean,
  viewerSeesEmail: boolean,
): string | null {
  if (clientGravatar && user.avatarSource === 'G' && viewerSeesEmail) return null;
  return avatarUrl(user);
}

/** The `realm_user` update of a user's avatar: its source, both sizes and its version. */
export const avatarUpdate = (user: AvatarSubject) => ({
  user_id: user.id,
  avatar_source: user.avatarSource,
  avatar_url: avatarUrl(user),
  avatar_url_medium: avatarUrl(user, true),
  avatar_version: user.avatarVersion,
});
