import { startSamlIdp, type SamlIdp } from '../auth/saml-idp';
import { signInWithButton, startSignInWorld, type SignInWorld } from './sign-in-world';

/**
 * A SAML sign-in end to end in chromium: the web client's button, samlify's IdP on loopback
 * (its signed response submitted by the browser to the ACS), and back to the signed-in client.
 */
jest.setTimeout(180_000);

let idp: SamlIdp;
let world: SignInWorld;

beforeAll(async () => {
  world = await startSignInWorld(async (api) => {
    idp = await startSamlIdp({ spOrigin: api });
    return {
      SOCIAL_AUTH_SAML_ENABLED_IDPS: JSON.stringify({
        okta: { ...idp.entry, display_name: 'Okta' },
      }),
    };
  });
}, 300_000);
afterAll(async () => {
  await world?.close();
  await idp?.close();
});

it('signs in with the Okta (SAML) button and comes back signed in', async () => {
  const { org } = world;
  idp.signInAs({ email: org.owner.email, firstName: 'Olivia', lastName: 'Owner' });
  const signedIn = await signInWithButton(world, 'Okta');
  expect(signedIn.origin).toBe(world.api);
  expect(signedIn.sessionCookie?.httpOnly).toBe(true);
  expect(signedIn.userId).toBe(org.owner.user.id);
  expect(signedIn.problems).toEqual([]);
});
