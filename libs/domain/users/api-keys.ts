import { createCipheriv, createDecipheriv, createHash, randomBytes, randomInt } from 'node:crypto';

const API_KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const API_KEY_LENGTH = 32;

/** 32 alphanumeric characters, like Zulip's keys (clients validate that shape). */
export function generateApiKey(): string {
  let key = '';
  for (let i = 0; i < API_KEY_LENGTH; i++)
    key += API_KEY_ALPHABET[randomInt(API_KEY_ALPHABET.length)];
  return key;
}

/** Keys are high-entropy, so a plain SHA-256 is a safe lookup hash (bcrypt would cost every request its latency). */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

function encryptionKey(secret: string): Buffer {
  return createHash('sha256').update(`api-key-encryption:${secret}`).digest();
}

/**
 * The key is also kept encrypted (AES-256-GCM under the server secret) because Zulip shows a user
 * or a bot's owner the same key again (`POST /fetch_api_key`, bot config download, `zuliprc`).
 */
export function encryptApiKey(apiKey: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(secret), iv);
  const body = Buffer.concat([cipher.update(apiKey, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
}

export function decryptApiKey(ciphertext: string, secret: string): string {
  const [iv, tag, body] = ciphertext.split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!iv || !tag || !body) throw new Error('malformed encrypted API key');
  const decipher = createDecipheriv('aes-256-gcm', encryptionKey(secret), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
}

export interface StoredApiKey {
  apiKeyHash: string;
  apiKeyCiphertext: string;
}

export function newStoredApiKey(secret: string): { apiKey: string; stored: StoredApiKey } {
  const apiKey = generateApiKey();
  return {
    apiKey,
    stored: { apiKeyHash: hashApiKey(apiKey), apiKeyCiphertext: encryptApiKey(apiKey, secret) },
  };
}
