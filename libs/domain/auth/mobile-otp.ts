import { API_KEY_LENGTH } from '../users/api-keys';
import { at } from '../../core/at';

/**
 * Zulip's mobile sign-in (zerver/lib/mobile_auth_otp.py): the app sends a one-time pad of
 * 2 * API_KEY_LENGTH hex digits as `mobile_flow_otp`; the server answers with the API key's ASCII
 * bytes, hex-encoded, XORed digit by digit with the pad, in a `zulip://login?...` redirect.
 */
export const isValidOtp = (otp: string) =>
  new RegExp(`^[0-9a-fA-F]{${2 * API_KEY_LENGTH}}$`).test(otp);

export function otpEncryptApiKey(apiKey: string, otp: string): string {
  const hexKey = Buffer.from(apiKey, 'ascii').toString('hex');
  if (hexKey.length !== otp.length) throw new Error('one-time pad and API key lengths differ');
  let out = '';
  for (const [i, digit] of [...hexKey].entries()) {
    out += (parseInt(digit, 16) ^ parseInt(at(otp, i), 16)).toString(16);
  }
  return out;
}

/** The redirect Zulip's mobile app waits for, in Zulip's parameter order. */
export function mobileLoginRedirect(input: {
  apiKey: string;
  otp: string;
  email: string;
  userId: number;
  realmUrl: string;
}): string {
  const params = new URLSearchParams({
    otp_encrypted_api_key: otpEncryptApiKey(input.apiKey, input.otp),
    email: input.email,
    user_id: String(input.userId),
    realm: input.realmUrl,
  });
  return `zulip://login?${params.toString()}`;
}
