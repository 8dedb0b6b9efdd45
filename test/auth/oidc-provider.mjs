// A real OpenID provider (the certified `oidc-provider` package) for the sign-in tests, run as
// its own process on loopback: `node test/auth/oidc-provider.mjs` with PORT and CLIENTS (a JSON
// list of {client_id, client_secret, redirect_uris}). Sign-in needs no form: the account that
// authenticates is the one last posted to /test/account ({sub, email, email_verified, name}).
// POST /test/tamper {mode} alters the ID token of the next token response, to test refusals:
// `forged` (signed by another key), `expired`, `audience` and `nonce` (re-signed by the real key).
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import { SignJWT, decodeJwt, importJWK } from 'jose';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const clients = JSON.parse(process.env.CLIENTS ?? '[]');
const accounts = new Map();
let current = null;

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-key', alg: 'RS256', use: 'sig' };

const { privateKey: otherKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
let tamper = null;

async function tampered(idToken, mode) {
  const claims = decodeJwt(idToken);
  const now = Math.floor(Date.now() / 1000);
  if (mode === 'expired') Object.assign(claims, { iat: now - 7200, exp: now - 3600 });
  if (mode === 'audience') claims.aud = 'some-other-client';
  if (mode === 'nonce') claims.nonce = 'not-the-nonce-sent';
  const key = mode === 'forged' ? otherKey : await importJWK(jwk, 'RS256');
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: jwk.kid }).sign(key);
}

/** Holds the token endpoint's answer and rewrites its ID token before it leaves. */
function tamperWith(res, mode) {
  const chunks = [];
  const end = res.end.bind(res);
  res.write = (chunk) => (chunks.push(Buffer.from(chunk)), true);
  res.end = (chunk) => {
    if (chunk) chunks.push(Buffer.from(chunk));
    const body = JSON.parse(Buffer.concat(chunks).toString());
    tampered(body.id_token, mode).then((token) => {
      const out = JSON.stringify({ ...body, id_token: token });
      res.setHeader('content-length', Buffer.byteLength(out));
      end(out);
    });
    return res;
  };
}

const provider = new Provider(issuer, {
  clients: clients.map((c) => ({
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    ...c,
  })),
  jwks: { keys: [jwk] },
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name', 'given_name', 'family_name'],
  },
  conformIdTokenClaims: false,
  pkce: { required: () => true },
  features: { devInteractions: { enabled: false } },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  cookies: { keys: ['test-cookie-key-0123456789'] },
  async findAccount(_ctx, sub) {
    const account = accounts.get(sub);
    return account ? { accountId: sub, claims: async () => ({ ...account }) } : undefined;
  },
});

async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  if (!current) {
    res.writeHead(400).end('no account to sign in as');
    return;
  }
  const grant = new provider.Grant({ accountId: current.sub, clientId: details.params.client_id });
  grant.addOIDCScope('openid email profile');
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId: current.sub }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}

const server = http.createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/test/account') {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      current = JSON.parse(body);
      accounts.set(current.sub, current);
      res.writeHead(204).end();
    });
    return;
  }
  if (req.method === 'POST' && req.url === '/test/tamper') {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      tamper = JSON.parse(body).mode;
      res.writeHead(204).end();
    });
    return;
  }
  if (req.url.startsWith('/token') && tamper) {
    tamperWith(res, tamper);
    tamper = null;
  }
  if (req.url.startsWith('/interaction/')) {
    interaction(req, res).catch((err) => res.writeHead(500).end(String(err)));
    return;
  }
  provider.callback()(req, res);
});
server.listen(port, '127.0.0.1', () => process.stdout.write(`ready ${issuer}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
