import { authenticator } from 'otplib';
import type { Page } from 'puppeteer-core';
import QRCode from 'qrcode';
import { currentTotp, otpauthUrl } from '../../libs/domain/auth/totp';
import { clickText, logIn, openPage } from './browser';
import { startSignInWorld, type SignInWorld } from './sign-in-world';

/**
 * Two-factor enrolment in chromium, as a person does it: Account & privacy shows the QR code
 * and the key, a code from that key turns it on and the backup codes appear; then signing out
 * and in again asks for a code, and takes one from the app or a backup code (once).
 */
jest.setTimeout(180_000);

const PASSWORD = 'a long enough password';
const SECTION = 'section[aria-label="Two-factor authentication"]';

let world: SignInWorld;
beforeAll(async () => {
  world = await startSignInWorld(() => ({ TWO_FACTOR_AUTHENTICATION_ENABLED: 'true' }), {
    ownerPassword: PASSWORD,
  });
}, 300_000);
afterAll(() => world?.close());

/** Logs out with the header's button and waits for the sign-in form. */
async function logOut(page: Page): Promise<void> {
  await clickText(page, 'header button', 'Log out');
  await page.waitForSelector('form.login-card input[name=password]');
}

/** The password first; the form then asks for the second factor, which `code` answers. */
async function logInWithCode(page: Page, code: string): Promise<string> {
  const form = 'form.login-card';
  await page.type(`${form} input[name=username]`, world.org.owner.email);
  await page.type(`${form} input[name=password]`, PASSWORD);
  await page.click(`${form} button[type=submit]`);
  await page.waitForSelector(`${form} input[name=otp]`);
  const asked = await page.$eval(`${form} [role=alert]`, (e) => e.textContent ?? '');
  await page.type(`${form} input[name=otp]`, code);
  await page.click(`${form} button[type=submit]`);
  return asked;
}

const twoFactorStatus = (page: Page) =>
  page.evaluate(async () => {
    const res = await fetch('/json/two_factor');
    return (await res.json()) as {
      available: boolean;
      enabled: boolean;
      backup_codes_left: number;
    };
  });

it('enrols with the QR code, then signs in with a code and with a backup code', async () => {
  const { org } = world;
  const { page, problems } = await openPage(world.browser, `${world.api}/`);
  await logIn(page, org.owner.email, PASSWORD);
  await page.evaluate(() => (location.hash = '#settings/account'));
  await clickText(page, `${SECTION} button`, 'Set up two-factor authentication');

  // The QR code is shown (decoded by the browser under the page's CSP) and carries the key shown
  // beside it, in the otpauth:// URL an authenticator app reads.
  await page.waitForFunction(() => {
    const img = document.querySelector<HTMLImageElement>('img.two-factor-qr');
    return img !== null && img.complete && img.naturalWidth > 0;
  });
  const secret = await page.$eval('code.two-factor-secret', (e) => e.textContent ?? '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  const qr = await page.$eval('img.two-factor-qr', (e) => (e as HTMLImageElement).src);
  expect(qr).toBe(
    await QRCode.toDataURL(otpauthUrl(secret, org.owner.user.deliveryEmail, 'Acme'), {
      margin: 1,
    }),
  );

  await page.type(`${SECTION} input[name=otp]`, currentTotp(secret));
  await clickText(page, `${SECTION} button`, 'Turn on');
  await page.waitForFunction(
    (s) => document.querySelectorAll(`${s} .backup-codes li`).length === 10,
    {},
    SECTION,
  );
  const backupCodes = await page.$$eval(`${SECTION} .backup-codes code`, (els) =>
    els.map((e) => e.textContent ?? ''),
  );
  expect(new Set(backupCodes).size).toBe(10);
  expect(await twoFactorStatus(page)).toMatchObject({
    available: true,
    enabled: true,
    backup_codes_left: 10,
  });

  // The code that confirmed enrolment is used up: an app shows the next one 30 s later.
  await logOut(page);
  const nextCode = authenticator.clone({ epoch: Date.now() + 30_000 }).generate(secret);
  expect(await logInWithCode(page, nextCode)).toContain('code');
  await page.waitForSelector('.realm-name');

  await logOut(page);
  await logInWithCode(page, backupCodes[0]);
  await page.waitForSelector('.realm-name');
  expect((await twoFactorStatus(page)).backup_codes_left).toBe(9);

  // A backup code works once.
  await logOut(page);
  await logInWithCode(page, backupCodes[0]);
  await page.waitForFunction(() =>
    document.querySelector('[role=alert]')?.textContent?.includes('not valid'),
  );
  expect(await page.$('.realm-name')).toBeNull();
  expect(problems).toEqual([]);
});
