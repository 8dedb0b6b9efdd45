import bodyParser from 'body-parser';
import {
  Router,
  type ErrorRequestHandler,
  type NextFunction,
  type Request,
  type Response,
} from 'express';
import type { Realm, ScimClient, User } from '../../generated/prisma/client';
import type { AppContext } from '../../libs/core/context';
import {
  listResponse,
  serviceProviderConfig,
  userResourceType,
  userSchema,
} from '../../libs/domain/scim/discovery';
import { listScimUsers } from '../../libs/domain/scim/list-scim-users';
import { createScimUser, updateScimUser } from '../../libs/domain/scim/provision-user';
import { scimClientFor } from '../../libs/domain/scim/scim-clients';
import {
  ScimError,
  scimBadRequest,
  scimErrorBody,
  scimNotFound,
  scimUnauthorized,
} from '../../libs/domain/scim/scim-errors';
import {
  SCIM_USER_SCHEMA,
  changeFromPatch,
  changeFromResource,
  toScimUser,
  type ScimUserChange,
} from '../../libs/domain/scim/scim-user';
import { realmUrl } from '../../libs/domain/realms/realm-url';
import { realmOfRequest } from '../../libs/http/principal-cache';

interface ScimCall {
  realm: Realm;
  client: ScimClient;
  base: string;
  req: Request;
}

const SCIM_TYPE = 'application/scim+json';

const send = (res: Response, status: number, body: unknown) =>
  res.status(status).type(SCIM_TYPE).send(JSON.stringify(body));

function sendError(res: Response, err: ScimError): void {
  if (err.status === 401) res.set('WWW-Authenticate', 'Bearer realm="SCIM"');
  send(res, err.status, scimErrorBody(err));
}

const queryText = (req: Request, name: string) => {
  const value = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw scimBadRequest(`${name} is given more than once.`, 'invalidSyntax');
  return value;
};

type Handler = (call: ScimCall) => unknown;

const realmBase = (ctx: AppContext, call: ScimCall) => realmUrl(call.realm.stringId, ctx.config);

/** Each request: the organization by host, its client by bearer token, then the handler. */
const scimHandler =
  (ctx: AppContext) =>
  (status: number, handler: Handler) =>
  (req: Request, res: Response, next: NextFunction) => {
    (async () => {
      const realm = await realmOfRequest(ctx, req);
      if (!realm) throw scimNotFound('There is no organization at this address.');
      const client = await scimClientFor(ctx, realm, req.get('authorization'));
      if (!client) throw scimUnauthorized();
      const base = `${realmUrl(realm.stringId, ctx.config)}/scim/v2`;
      send(res, status, await handler({ realm, client, base, req }));
    })().catch((err: unknown) => {
      if (err instanceof ScimError) sendError(res, err);
      else next(err);
    });
  };

/** RFC 7644 §4: what this server offers (the User resource only). */
function discoveryRoutes(router: Router, handle: ReturnType<typeof scimHandler>): void {
  router.get(
    '/ServiceProviderConfig',
    handle(200, ({ base }) => serviceProviderConfig(base)),
  );
  router.get(
    '/ResourceTypes',
    handle(200, ({ base }) => listResponse([userResourceType(base)], 1, 1)),
  );
  router.get(
    '/ResourceTypes/User',
    handle(200, ({ base }) => userResourceType(base)),
  );
  router.get(
    '/Schemas',
    handle(200, ({ base }) => listResponse([userSchema(base)], 1, 1)),
  );
  // The schema's id (a URN, colons and all) is the last segment.
  router.get(
    '/Schemas/:id',
    handle(200, ({ base, req }) => {
      if (req.params.id !== SCIM_USER_SCHEMA) throw scimNotFound('Unknown schema.');
      return userSchema(base);
    }),
  );
}

/** /Users: list with filter and paging, create, read, replace, patch; DELETE refused. */
function userRoutes(ctx: AppContext, router: Router, handle: ReturnType<typeof scimHandler>) {
  const userOf = async ({ realm, req }: ScimCall) => {
    const id = String(req.params.id);
    const user = /^\d{1,9}$/.test(id)
      ? await ctx.db.user.findFirst({ where: { id: Number(id), realmId: realm.id, isBot: false } })
      : null;
    if (!user) throw scimNotFound(`Resource ${id} not found`);
    return user;
  };
  const shown = (call: ScimCall, user: User) => toScimUser(user, call.client, realmBase(ctx, call));

  router.get(
    '/Users',
    handle(200, async (call) => {
      const page = await listScimUsers(ctx, {
        realm: call.realm,
        filter: queryText(call.req, 'filter'),
        startIndex: queryText(call.req, 'startIndex'),
        count: queryText(call.req, 'count'),
      });
      const resources = page.users.map((user) => shown(call, user));
      return listResponse(resources, page.total, page.startIndex);
    }),
  );
  router.post(
    '/Users',
    handle(201, async (call) => {
      const change = changeFromResource(call.req.body, call.client, true);
      return shown(call, await createScimUser(ctx, { realm: call.realm, change }));
    }),
  );
  router.get(
    '/Users/:id',
    handle(200, async (call) => shown(call, await userOf(call))),
  );
  const update = (read: (call: ScimCall) => ScimUserChange) =>
    handle(200, async (call) => {
      const target = await userOf(call);
      const change = read(call);
      return shown(call, await updateScimUser(ctx, { realm: call.realm, target, change }));
    });
  router.put(
    '/Users/:id',
    update((call) => changeFromResource(call.req.body, call.client, false)),
  );
  router.patch(
    '/Users/:id',
    update((call) => changeFromPatch(call.req.body)),
  );
  router.delete(
    '/Users/:id',
    handle(204, async (call) => {
      await userOf(call);
      throw scimBadRequest(
        'DELETE operation not supported. Use PUT or PATCH to modify the "active" attribute instead.',
      );
    }),
  );
}

/** A body that is not JSON (or too large) still answers in SCIM's form. */
const malformedBody: ErrorRequestHandler = (err: unknown, _req, res, next) => {
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const detail =
      status === 413 ? 'The request body is too large.' : 'The request body is not valid JSON.';
    sendError(res, new ScimError(status, detail, status === 413 ? null : 'invalidSyntax'));
  } else next(err);
};

/**
 * SCIM 2.0 provisioning (RFC 7643/7644) at Zulip's `/scim/v2/`, for Okta and other identity
 * providers: Users (create, read, list with `filter=userName eq "..."` and paging, replace,
 * patch; no delete, as in Zulip: deactivate with `active: false`), and the discovery documents.
 * Every request needs the organization's bearer token; every refusal is a SCIM Error.
 */
export function scimRoutes(ctx: AppContext): Router {
  const router = Router();
  router.use(bodyParser.json({ type: [SCIM_TYPE, 'application/json'], limit: '1mb' }));
  const handle = scimHandler(ctx);
  discoveryRoutes(router, handle);
  userRoutes(ctx, router, handle);
  router.use((_req, res) => sendError(res, scimNotFound('Unknown SCIM endpoint.')));
  router.use(malformedBody);
  return router;
}
