/** RFC 7644 §3.12: every refusal carries this schema, the status as a string, and a detail. */
export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** The `scimType` values of RFC 7644 table 9 that this server uses. */
export type ScimType =
  'invalidFilter' | 'invalidSyntax' | 'invalidValue' | 'mutability' | 'noTarget' | 'uniqueness';

/** A SCIM refusal: its HTTP status, RFC 7644's `scimType` where one applies, and the detail. */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly scimType: ScimType | null = null,
  ) {
    super(detail);
  }
}

export const scimBadRequest = (detail: string, scimType: ScimType | null = null) =>
  new ScimError(400, detail, scimType);
export const scimUnauthorized = () =>
  new ScimError(401, 'Authentication is required: a valid bearer token for this organization.');
export const scimForbidden = (detail: string) => new ScimError(403, detail);
export const scimNotFound = (detail = 'Resource not found.') => new ScimError(404, detail);
export const scimConflict = (detail: string) => new ScimError(409, detail, 'uniqueness');
export const scimNotImplemented = (detail = 'Not Implemented') => new ScimError(501, detail);

export function scimErrorBody(err: ScimError): Record<string, unknown> {
  return {
    schemas: [SCIM_ERROR_SCHEMA],
    status: String(err.status),
    ...(err.scimType ? { scimType: err.scimType } : {}),
    detail: err.message,
  };
}
