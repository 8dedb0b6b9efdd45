/** A 1x1 transparent PNG. */
export const PNG_PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * A multipart/form-data body with one file part, whose Content-Type header is there only when
 * `partType` is given: Python's requests (the `zulip` client's uploads) sends none.
 */
export function multipartFile(
  fileName: string,
  body: Buffer,
  partType?: string,
): { type: string; body: Buffer } {
  const boundary = 'pythonrequestsboundary1234';
  const head =
    `--${boundary}\r\n` +
    `Content-Disposition: form-data; name="file"; filename="${fileName}"\r\n` +
    (partType ? `Content-Type: ${partType}\r\n` : '') +
    '\r\n';
  return {
    type: `multipart/form-data; boundary=${boundary}`,
    body: Buffer.concat([Buffer.from(head), body, Buffer.from(`\r\n--${boundary}--\r\n`)]),
  };
}
