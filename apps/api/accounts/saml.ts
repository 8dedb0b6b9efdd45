import { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { badRequest, nonexistentSubdomain, notFound } from '../../../libs/core/errors';
import { externalLogin } from '../../../libs/domain/auth/external-login';
import { takeFlow } from '../../../libs/domain/auth/flow-state';
import { finishSamlLogin, samlMetadata, startSamlLogin } from '../../../libs/domain/auth/saml';
import { samlIdpFor } from '../../../libs/domain/auth/saml-methods';
import { realmUrl } from '../../../libs/domain/realms/realm-url';
import { realmOfRequest } from '../../../libs/http/principal-cache';
import { clientOtps, finishSignIn, page, query, safeNext, sentToSystemBrowser } from './social';

const notEnabled = () => notFound('This sign-in method is not enabled in this organization.');

const field = (body: unknown, name: string): string => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

/**
 * SAML 2.0 sign-in at Zulip's paths: `/accounts/login/social/saml/<idp>` (and
 * `/accounts/register/...`) send an AuthnRequest by the HTTP-Redirect binding, the IdP POSTs its
 * response to `/complete/saml/`, and `/saml/metadata.xml` describes this service provider. The
 * RelayState is the flow's one-time key (the IdP's POST comes from another site, so no cookie of
 * ours binds it; the response must answer the very AuthnRequest this flow sent).
 */
export function samlRoutes(ctx: AppContext): Router {
  const router = Router();

  router.get(
    '/saml/metadata.xml',
    page('SAML metadata', async (req, res) => {
      const saml = ctx.config.saml;
      if (!saml) throw notEnabled();
      const realm = await realmOfRequest(ctx, req);
      const base = realm
        ? realmUrl(realm.stringId, ctx.config)
        : `${ctx.config.externalScheme}://${ctx.config.externalHost}`;
      res.type('application/samlmetadata+xml').send(samlMetadata(ctx, saml, base));
    }),
  );

  const start = (isSignup: boolean) =>
    page('Sign in', async (req, res) => {
      const realm = await realmOfRequest(ctx, req);
      if (!realm) throw nonexistentSubdomain();
      const saml = ctx.config.saml;
      const idp = saml && samlIdpFor(ctx.config, realm, String(req.params.idp));
      if (!saml || !idp) throw notEnabled();
      if (sentToSystemBrowser(req, res)) return;
      const otps = clientOtps(req);
      const next = safeNext(query(req, 'next'));
      const { url } = await startSamlLogin(ctx, {
        saml,
        idp,
        realmUrl: realmUrl(realm.stringId, ctx.config),
        flow: { realmId: realm.id, next, ...otps, isSignup },
      });
      res.redirect(302, url);
    });
  router.get('/accounts/login/social/saml/:idp', start(false));
  router.get('/accounts/register/social/saml/:idp', start(true));

  router.post(
    '/complete/saml/',
    page('Sign in', async (req, res) => {
      const realm = await realmOfRequest(ctx, req);
      if (!realm) throw nonexistentSubdomain();
      const samlResponse = field(req.body, 'SAMLResponse');
      const relayState = field(req.body, 'RelayState');
      if (!samlResponse) throw badRequest('The identity provider sent no SAML response.');
      const flow = await takeFlow(ctx, relayState);
      if (!flow || flow.realmId !== realm.id || !flow.method.startsWith('saml:')) {
        throw badRequest('This sign-in has expired or was already used: start again.');
      }
      const saml = ctx.config.saml;
      const idp = saml && samlIdpFor(ctx.config, realm, flow.method.slice('saml:'.length));
      if (!saml || !idp) throw notEnabled();
      const base = realmUrl(realm.stringId, ctx.config);
      const identity = await finishSamlLogin(ctx, {
        saml,
        idp,
        realmUrl: base,
        flow,
        samlResponse,
        relayState,
      });
      const user = await externalLogin(ctx, { realm, identity });
      await finishSignIn(ctx, res, { user, realmUrl: base, flow });
    }),
  );
  return router;
}
