import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import type { Config } from '../../core/config';

let estimator: ZxcvbnFactory | undefined;

/** zxcvbn with the common-password and English dictionaries, as Zulip's; built on first use (~0.5 s). */
function zxcvbn(): ZxcvbnFactory {
  if (estimator === undefined) {
    // Loaded here so processes that never check a password skip the dictionaries (a few MB).
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load in CommonJS
    const common: typeof import('@zxcvbn-ts/language-common') = require('@zxcvbn-ts/language-common');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load in CommonJS
    const en: typeof import('@zxcvbn-ts/language-en') = require('@zxcvbn-ts/language-en');
    estimator = new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...en.dictionary },
      graphs: common.adjacencyGraphs,
    });
  }
  return estimator;
}

/**
 * Zulip's check_password_strength: at least PASSWORD_MIN_LENGTH characters, never empty, and
 * at least PASSWORD_MIN_GUESSES guesses by zxcvbn's estimate.
 */
export function passwordIsStrong(
  config: Pick<Config, 'passwordMinLength' | 'passwordMinGuesses'>,
  password: string,
): boolean {
  if (password.length < config.passwordMinLength || password === '') return false;
  if (config.passwordMinGuesses <= 0) return true;
  return zxcvbn().check(password).guesses >= config.passwordMinGuesses;
}
