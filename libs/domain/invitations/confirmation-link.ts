import { randomBytes } from 'node:crypto';
import type { Realm } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { realmUrl } from '../realms/realm-url';

export const newConfirmationKey = () => randomBytes(12).toString('hex');

export const joinUrl = (ctx: AppContext, realm: Realm, key: string) =>
  `${realmUrl(realm.stringId, ctx.config)}/join/${key}/`;
