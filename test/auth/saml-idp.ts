import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as validator from '@authenio/samlify-node-xmllint';
import * as samlify from 'samlify';
import { freePort } from '../free-port';
import type { RedirectAgent } from './oidc-peer';

const run = promisify(execFile);
samlify.setSchemaValidator(validator);

export interface SamlAccount {
  email: string;
  firstName?: string;
  lastName?: string;
}

/**
 * How the next response goes wrong: signed by a key the SP does not trust, altered after signing,
 * already expired, for another audience, or answering a request nobody sent.
 */
export type SamlTamper = 'forged' | 'altered' | 'expired' | 'audience' | 'inResponseTo';

export interface SamlIdp {
  entityId: string;
  ssoUrl: string;
  /**
   * This IdP's keys in a SOCIAL_AUTH_SAML_ENABLED_IDPS entry (`x509cert`: the signing
   * certificate's base64 body, as Zulip takes it); the rest is the caller's.
   */
  entry: { entity_id: string; url: string; x509cert: string };
  signInAs(account: SamlAccount): void;
  tamperNext(mode: SamlTamper): void;
  close(): Promise<void>;
}

/** The auto-submitting form an IdP answers with (HTTP-POST binding), read back for tests. */
export function postedForm(html: string): { action: string; fields: Record<string, string> } {
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1] ?? '';
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
    fields[match[1]] = match[2].replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  }
  return { action: action.replace(/&amp;/g, '&'), fields };
}

/**
 * A browser's way through a SAML sign-in up to the ACS: the start at `url` (the server's redirect
 * to the IdP, which `startMs` times), the IdP's page, and the form it would post, not yet posted.
 */
export async function toSamlAcs(agent: RedirectAgent, url: string) {
  const started = performance.now();
  const start = await agent.get(url);
  const startMs = performance.now() - started;
  const location = start.headers.get('location') ?? '';
  const page = await agent.get(location);
  return { start, startMs, location, page, form: postedForm(await page.text()) };
}

async function keyPair(dir: string, name: string): Promise<{ key: string; cert: string }> {
  const keyFile = path.join(dir, `${name}.key`);
  const certFile = path.join(dir, `${name}.crt`);
  await run('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1',
    '-keyout', keyFile, '-out', certFile, '-subj', `/CN=${name}`,
  ]); // prettier-ignore
  return { key: await readFile(keyFile, 'utf8'), cert: await readFile(certFile, 'utf8') };
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/**
 * A SAML 2.0 identity provider from samlify's IdP mode, on a loopback port of the test process:
 * it reads the SP's metadata from `<spOrigin>/saml/metadata.xml`, takes AuthnRequests by the
 * HTTP-Redirect binding at `/sso`, and answers with a response signed by XML-DSig with a key and
 * certificate made by openssl for this run, in an auto-submitting form to the SP's ACS.
 */
export async function startSamlIdp(options: { spOrigin: string }): Promise<SamlIdp> {
  const dir = await mkdtemp(path.join(tmpdir(), 'saml-idp-'));
  const trusted = await keyPair(dir, 'idp');
  const forger = await keyPair(dir, 'forger');
  await rm(dir, { recursive: true, force: true });
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const entityId = `${origin}/metadata`;
  const ssoUrl = `${origin}/sso`;
  const attribute = (name: string, valueTag: string) => ({
    name,
    valueTag,
    nameFormat: 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic',
    valueXsiType: 'xs:string',
  });
  const identityProvider = (keys: { key: string; cert: string }) =>
    samlify.IdentityProvider({
      entityID: entityId,
      privateKey: keys.key,
      signingCert: keys.cert,
      nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'],
      singleSignOnService: [
        { Binding: samlify.Constants.namespace.binding.redirect, Location: ssoUrl },
      ],
      loginResponseTemplate: {
        context: samlify.SamlLib.defaultLoginResponseTemplate.context,
        attributes: [
          attribute('email', 'email'),
          attribute('first_name', 'firstName'),
          attribute('last_name', 'lastName'),
        ],
      },
    });
  const idp = identityProvider(trusted);
  const forgingIdp = identityProvider(forger);

  let account: SamlAccount = { email: 'nobody@example.com' };
  let tamper: SamlTamper | null = null;

  const respond = async (url: URL): Promise<string> => {
    const metadata = await (await fetch(`${options.spOrigin}/saml/metadata.xml`)).text();
    const sp = samlify.ServiceProvider({ metadata });
    const request = await idp.parseLoginRequest(sp, 'redirect', {
      query: Object.fromEntries(url.searchParams),
      octetString: url.search.slice(1),
    });
    const mode = tamper;
    tamper = null;
    const now = new Date();
    const later = new Date(now.getTime() + 5 * 60_000);
    const expired = new Date(now.getTime() - 10 * 60_000);
    const acs = sp.entityMeta.getAssertionConsumerService('post') as string;
    const requestId = (request.extract as { request: { id: string } }).request.id;
    const { context } = await (mode === 'forged' ? forgingIdp : idp).createLoginResponse(
      sp,
      { extract: request.extract },
      'post',
      { email: account.email },
      {
        relayState: url.searchParams.get('RelayState') ?? '',
        customTagReplacement: (template) => {
          const id = `_${randomBytes(16).toString('hex')}`;
          const values: Record<string, string> = {
            ID: id,
            AssertionID: `_${randomBytes(16).toString('hex')}`,
            Destination: acs,
            Audience:
              mode === 'audience'
                ? 'https://another-service.example/'
                : sp.entityMeta.getEntityID(),
            SubjectRecipient: acs,
            Issuer: entityId,
            IssueInstant: (mode === 'expired' ? expired : now).toISOString(),
            StatusCode: samlify.Constants.StatusCode.Success,
            ConditionsNotBefore: (mode === 'expired' ? expired : now).toISOString(),
            ConditionsNotOnOrAfter: (mode === 'expired' ? expired : later).toISOString(),
            SubjectConfirmationDataNotOnOrAfter: (mode === 'expired'
              ? expired
              : later
            ).toISOString(),
            NameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
            NameID: account.email,
            InResponseTo:
              mode === 'inResponseTo' ? `_${randomBytes(20).toString('hex')}` : requestId,
            AuthnStatement: '',
            attrEmail: account.email,
            attrFirstName: account.firstName ?? '',
            attrLastName: account.lastName ?? '',
          };
          return { id, context: samlify.SamlLib.replaceTagsByValue(template, values) };
        },
      },
    );
    let response = context;
    if (mode === 'altered') {
      const xml = Buffer.from(context, 'base64').toString('utf8');
      response = Buffer.from(xml.split(account.email).join('mallory@acme.example')).toString(
        'base64',
      );
    }
    const relayState = url.searchParams.get('RelayState') ?? '';
    return (
      `<!doctype html><html><head><title>IdP</title></head><body>` +
      `<form method="post" action="${escapeAttr(acs)}">` +
      `<input type="hidden" name="SAMLResponse" value="${escapeAttr(response)}">` +
      `<input type="hidden" name="RelayState" value="${escapeAttr(relayState)}">` +
      `<noscript><button>Continue</button></noscript></form>` +
      `<script>document.forms[0].submit()</script></body></html>`
    );
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname !== '/sso') {
      res.writeHead(404).end();
      return;
    }
    respond(url).then(
      (html) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(html),
      (err: unknown) => res.writeHead(400, { 'Content-Type': 'text/plain' }).end(String(err)),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const x509cert = trusted.cert.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  return {
    entityId,
    ssoUrl,
    entry: { entity_id: entityId, url: ssoUrl, x509cert },
    signInAs(next) {
      account = next;
    },
    tamperNext(mode) {
      tamper = mode;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
