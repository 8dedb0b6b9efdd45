import { badRequest } from '../../core/errors';
import { PushKind, type PushKindCode } from './push-kind';

const HEX = /^[0-9a-fA-F]+$/;

export function checkToken(token: string, kind: PushKindCode): void {
  if (token === '' || token.length > 4096) throw badRequest('Empty or invalid length token');
  // APNs device tokens are hex strings; anything else would be refused by Apple.
  if (kind === PushKind.APNS && (!HEX.test(token) || token.length % 2 !== 0)) {
    throw badRequest('Invalid APNS token');
  }
}
