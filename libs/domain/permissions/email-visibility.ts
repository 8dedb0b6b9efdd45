import { Role } from '../users/roles';

/** User.emailAddressVisibility codes. */
export const EmailVisibility = {
  EVERYONE: 1,
  MEMBERS: 2,
  ADMINS: 3,
  NOBODY: 4,
  MODERATORS: 5,
} as const;

/** May `viewer` see `target`'s real email address (`delivery_email`)? */
export function canSeeDeliveryEmail(
  viewer: { id: number; role: number },
  target: { id: number; emailAddressVisibility: number },
): boolean {
  if (viewer.id === target.id) return true;
  switch (target.emailAddressVisibility) {
    case EmailVisibility.EVERYONE:
      return true;
    case EmailVisibility.MEMBERS:
      return viewer.role <= Role.MEMBER;
    case EmailVisibility.MODERATORS:
      return viewer.role <= Role.MODERATOR;
    case EmailVisibility.ADMINS:
      return viewer.role <= Role.ADMINISTRATOR;
    default:
      return false;
  }
}
