import { startOidcPeer, type OidcPeer } from '../auth/oidc-peer';
import { signInWithButton, startSignInWorld, type SignInWorld } from './sign-in-world';

/**
 * An OpenID Connect sign-in end to end in chromium: the web client's button, the real
 * `oidc-provider` on loopback, and back to the signed-in client.
 */
jest.setTimeout(180_000);

let peer: OidcPeer;
let world: SignInWorld;

beforeAll(async () => {
  world = await startSignInWorld(async (api) => {
    peer = await startOidcPeer([
      { client_id: 'chat', client_secret: 'chat-secret', redirect_uris: [`${api}/complete/oidc/`] },
    ]);
    return {
      SOCIAL_AUTH_OIDC_ENABLED_IDPS: JSON.stringify({
        keycloak: {
          oidc_url: peer.issuer,
          display_name: 'Keycloak',
          client_id: 'chat',
          secret: 'chat-secret',
        },
      }),
    };
  });
}, 300_000);
afterAll(async () => {
  await world?.close();
  await peer?.close();
});

it('signs in with the Keycloak button and comes back signed in', async () => {
  const { org } = world;
  await peer.signInAs({ sub: 'owner', email: org.owner.email, email_verified: true });
  const signedIn = await signInWithButton(world, 'Keycloak');
  expect(signedIn.origin).toBe(world.api);
  expect(signedIn.sessionCookie?.httpOnly).toBe(true);
  expect(signedIn.userId).toBe(org.owner.user.id);
  expect(signedIn.problems).toEqual([]);
});
