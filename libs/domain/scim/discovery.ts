import { SCIM_MAX_RESULTS } from './list-scim-users';
import { SCIM_USER_SCHEMA } from './scim-user';

export const SCIM_LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const CONFIG_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

/** RFC 7644 §4's discovery documents, for the User resource this server offers. */
export function serviceProviderConfig(base: string) {
  return {
    schemas: [CONFIG_SCHEMA],
    documentationUri: 'https://zulip.com/help/scim',
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: SCIM_MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: 'A bearer token made for the organization with `create-scim-token`.',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function userResourceType(base: string) {
  return {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'A member of the organization',
    schema: SCIM_USER_SCHEMA,
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
  };
}

const attribute = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

export function userSchema(base: string) {
  return {
    schemas: [SCHEMA_SCHEMA],
    id: SCIM_USER_SCHEMA,
    name: 'User',
    description: 'A member of the organization',
    attributes: [
      attribute('userName', { required: true, uniqueness: 'server' }),
      attribute('name', {
        type: 'complex',
        subAttributes: [attribute('formatted'), attribute('givenName'), attribute('familyName')],
      }),
      attribute('displayName', { mutability: 'readOnly' }),
      attribute('active', { type: 'boolean' }),
      attribute('role', {
        canonicalValues: ['owner', 'administrator', 'moderator', 'member', 'guest'],
      }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${SCIM_USER_SCHEMA}` },
  };
}

export const listResponse = (resources: unknown[], total: number, startIndex: number) => ({
  schemas: [SCIM_LIST_SCHEMA],
  totalResults: total,
  itemsPerPage: resources.length,
  startIndex,
  Resources: resources,
});
