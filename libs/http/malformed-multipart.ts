/**
 * busboy's errors for a body that is not well-formed multipart (cut short, a broken part header,
 * no boundary), which multer passes on as plain errors. The client's fault: a 400, unlike the
 * storage's own errors that reach the same callback.
 */
const MALFORMED_MULTIPART =
  /^(Unexpected end of (form|file)|Malformed part header|Multipart: Boundary not found|Malformed urlencoded form)$/;

export function malformedMultipart(err: unknown): boolean {
  return err instanceof Error && MALFORMED_MULTIPART.test(err.message);
}
