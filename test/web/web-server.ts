import { makeRealm, makeUser } from '../factories';
import { freePort } from '../free-port';
import { startTestContext, type TestContext } from '../harness';
import { startTier, type Tier } from '../multiprocess/processes';
import type { RoleCode } from '../../libs/domain/users/roles';
import { apiAs, ensureWebBuilt, type Person } from './browser';

/** The password every person of a browser test signs in with. */
export const PASSWORD = 'a long browser password';

/** The one-process server a browser test drives, with its organization's people. */
export interface WebServer {
  t: TestContext;
  /** Replaced by a test that restarts it, on the same port. */
  server: Tier;
  port: number;
  /** In the order they were asked for. */
  people: Person[];
  /** Calls the API as `who`, with a form; throws unless the answer is 200. */
  api<T = Record<string, unknown>>(
    who: Person,
    method: string,
    route: string,
    form?: Record<string, string>,
  ): Promise<T>;
  stop(): Promise<void>;
}

export interface WebServerOptions {
  /** Each a member unless given a role. */
  people: { fullName: string; role?: RoleCode }[];
  /**
   * Zulip's `enter_sends` for everyone: Enter sends, as the tests that type and press Enter need.
   * Left out, Zulip's default holds (Ctrl+Enter sends).
   */
  enterSends?: boolean;
  /** The server's environment beyond the test's own. */
  env?: Record<string, string>;
}

/** An organization at the test's root domain ("Acme Corp") with the given people. */
export async function webOrganization(
  t: TestContext,
  options: Pick<WebServerOptions, 'people' | 'enterSends'>,
): Promise<Person[]> {
  const { realm } = await makeRealm(t, { stringId: '', name: 'Acme Corp' });
  const people: Person[] = [];
  for (const { fullName, role } of options.people) {
    const u = await makeUser(t, realm, { fullName, role, password: PASSWORD });
    if (options.enterSends) {
      await t.db.user.update({ where: { id: u.user.id }, data: { enterSends: true } });
    }
    people.push({ id: u.user.id, email: u.email, fullName, auth: u.auth });
  }
  return people;
}

/**
 * The web client built, a test context whose external host is the server's address, its
 * organization (`webOrganization`) and the `all` server.
 */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  ensureWebBuilt();
  const port = await freePort();
  const t = await startTestContext({ EXTERNAL_HOST: `127.0.0.1:${port}` });
  try {
    const people = await webOrganization(t, options);
    // A busy machine takes a while to start the server from its TypeScript.
    const server = await startTier('all', t.config, options.env ?? {}, port, { startSeconds: 240 });
    const web: WebServer = {
      t,
      server,
      port,
      people,
      api: <T>(who: Person, method: string, route: string, form?: Record<string, string>) =>
        apiAs<T>(web.server.url, who, method, route, form),
      async stop() {
        await web.server.stop();
        await t.close();
      },
    };
    return web;
  } catch (err) {
    await t.close();
    throw err;
  }
}
